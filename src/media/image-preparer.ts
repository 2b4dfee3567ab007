import sharp from 'sharp';

/** The longest edge Claude reads an image at without resizing it itself (Anthropic's vision guide). */
export const IMAGE_MAX_EDGE_PX = 1568;

/** A photo ready for an image block. */
export interface PreparedImage {
  data: Buffer;
  mediaType: 'image/jpeg' | 'image/png';
  width: number;
  height: number;
  /** What the API charges for it: about width × height / 750 tokens. */
  estimatedTokens: number;
}

/** Why a photo could not be prepared. */
export interface ImageProblem {
  problem: 'corrupt';
  detail: string;
}

/** About what the API bills for an image of these dimensions (its documented estimate). */
function imageTokens(width: number, height: number): number {
  return Math.ceil((width * height) / 750);
}

/**
 * Makes a photo fit for Claude: turned upright (EXIF orientation), downscaled so its long
 * edge is at most 1568 px (never enlarged), and re-encoded: JPEG for photos, PNG for images
 * with transparency (screenshots, stickers). A 12-megapixel phone photo (often over the API's
 * 5 MB limit, which it refuses outright) goes up as a few hundred KB at the ≤ ~2,500 tokens (a 4:3 photo at 1568 × 1176)
 * the API would charge after its own resize anyway. Only the first frame of an animation is
 * kept. Bytes that do not decode as an image are a problem, not an exception.
 */
export async function prepareImage(bytes: Buffer): Promise<PreparedImage | ImageProblem> {
  try {
    // limitInputPixels (sharp's default, 268 Mpx) refuses decompression bombs before decoding
    // them; failOn 'warning' (also the default) refuses truncated files libjpeg would only warn about.
    const image = sharp(bytes, { failOn: 'warning', animated: false }).rotate();
    const metadata = await image.metadata();
    const transparent = metadata.hasAlpha === true && metadata.format !== 'jpeg';
    const resized = image.resize({ width: IMAGE_MAX_EDGE_PX, height: IMAGE_MAX_EDGE_PX, fit: 'inside', withoutEnlargement: true });
    // Plain libjpeg-turbo at quality 82: mozjpeg would save ~10% of a few hundred KB at twice the time.
    const encoded = transparent
      ? await resized.png({ compressionLevel: 9, palette: true }).toBuffer({ resolveWithObject: true })
      : await (metadata.hasAlpha ? resized.flatten({ background: '#ffffff' }) : resized).jpeg({ quality: 82 }).toBuffer({ resolveWithObject: true });
    const { width, height } = encoded.info;
    return { data: encoded.data, mediaType: transparent ? 'image/png' : 'image/jpeg', width, height, estimatedTokens: imageTokens(width, height) };
  } catch (error) {
    return { problem: 'corrupt', detail: error instanceof Error ? error.message.slice(0, 200) : String(error) };
  }
}

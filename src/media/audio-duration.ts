import { parseBuffer } from 'music-metadata';

/**
 * How long a recording is, in seconds, read from its container (the Ogg/Opus granule
 * position, WAV's data size, MP3 frames…) without decoding it; undefined when the bytes
 * do not say (a broken or unknown file).
 */
export async function audioDurationSeconds(bytes: Buffer, mediaType: string): Promise<number | undefined> {
  try {
    const metadata = await parseBuffer(bytes, { mimeType: mediaType, size: bytes.length }, { duration: true, skipCovers: true });
    const duration = metadata.format.duration;
    return duration !== undefined && Number.isFinite(duration) && duration >= 0 ? duration : undefined;
  } catch {
    return undefined;
  }
}

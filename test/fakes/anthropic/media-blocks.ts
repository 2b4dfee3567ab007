import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';

/**
 * Image and PDF blocks as the real Messages API takes them (Anthropic's vision and PDF
 * guides): base64 that decodes, a declared media type the bytes really are, at most 5 MB and
 * 8000 px a side per image, at most 100 images and 100 PDF pages per request, and only in
 * user turns. What it charges: about width × height / 750 tokens per image, after its own
 * resize to 1568 px on the long edge, and (in this fake) 2,000 tokens per PDF page.
 */

/** The API's limits. */
export const API_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
const IMAGE_MAX_SIDE = 8000;
const MAX_IMAGES = 100;
const MAX_PDF_PAGES = 100;
const RESIZE_EDGE = 1568;
/** What this fake bills per PDF page (text plus the page's image). */
const PDF_PAGE_TOKENS = 2000;

/** What the media blocks of a request cost, or why the API would refuse them. */
export interface MediaInspection {
  violation?: string;
  tokens: number;
  images: number;
  pdfPages: number;
}

const imageMagic: Record<string, (bytes: Buffer) => boolean> = {
  'image/jpeg': (bytes) => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  'image/png': (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/gif': (bytes) => bytes.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (bytes) => bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
};

/** Checks every image and document block of a request body, and counts their tokens. */
export async function inspectMediaBlocks(body: Record<string, unknown>): Promise<MediaInspection> {
  const result: MediaInspection = { tokens: 0, images: 0, pdfPages: 0 };
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: unknown; content?: unknown }>) : [];
  for (const [messageIndex, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [blockIndex, block] of (message.content as Array<Record<string, unknown>>).entries()) {
      if (block?.type !== 'image' && block?.type !== 'document') continue;
      const where = `messages.${messageIndex}.content.${blockIndex}`;
      if (message.role !== 'user') return { ...result, violation: `${where}: ${String(block.type)} blocks are only allowed in user messages` };
      const source = block.source as { type?: unknown; media_type?: unknown; data?: unknown } | undefined;
      if (source?.type !== 'base64' || typeof source.data !== 'string') return { ...result, violation: `${where}.source: this fake takes base64 sources only` };
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(source.data)) return { ...result, violation: `${where}.source.data: invalid base64 data` };
      const bytes = Buffer.from(source.data, 'base64');
      if (block.type === 'image') {
        const violation = await checkImage(bytes, String(source.media_type), where, result);
        if (violation) return { ...result, violation };
      } else {
        const violation = await checkPdf(bytes, String(source.media_type), where, result);
        if (violation) return { ...result, violation };
      }
    }
  }
  if (result.images > MAX_IMAGES) return { ...result, violation: `Too many images in this request: ${result.images} > ${MAX_IMAGES}` };
  if (result.pdfPages > MAX_PDF_PAGES) return { ...result, violation: `A maximum of ${MAX_PDF_PAGES} PDF pages may be provided.` };
  return result;
}

async function checkImage(bytes: Buffer, mediaType: string, where: string, result: MediaInspection): Promise<string | undefined> {
  const magic = imageMagic[mediaType];
  if (!magic) return `${where}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
  if (bytes.length > API_IMAGE_MAX_BYTES) return `${where}.source.base64: image exceeds 5 MB maximum: ${bytes.length} bytes > ${API_IMAGE_MAX_BYTES} bytes`;
  if (!magic(bytes)) return `${where}: Image does not match the provided media type ${mediaType}`;
  let width: number;
  let height: number;
  try {
    const metadata = await sharp(bytes).metadata();
    width = metadata.width ?? 0;
    height = metadata.height ?? 0;
  } catch {
    return `${where}: Could not process image`;
  }
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE) return `${where}: image dimensions exceed max allowed size: ${IMAGE_MAX_SIDE} pixels`;
  const scale = Math.min(1, RESIZE_EDGE / Math.max(width, height));
  result.tokens += Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / 750);
  result.images += 1;
  return undefined;
}

async function checkPdf(bytes: Buffer, mediaType: string, where: string, result: MediaInspection): Promise<string | undefined> {
  if (mediaType !== 'application/pdf') return `${where}.source.media_type: Input should be 'application/pdf'`;
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return `${where}: The PDF specified was not valid.`;
  try {
    const document = await PDFDocument.load(bytes, { updateMetadata: false });
    result.pdfPages += document.getPageCount();
    result.tokens += document.getPageCount() * PDF_PAGE_TOKENS;
  } catch (error) {
    return /encrypt/i.test(String(error)) ? `${where}: The PDF specified is password protected.` : `${where}: The PDF specified was not valid.`;
  }
  return undefined;
}

/** The body with image and PDF data left out, for counting its text tokens as the API does (media is billed by size, not by base64 length). */
export function withoutMediaData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMediaData);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if ((record.type === 'image' || record.type === 'document') && typeof record.source === 'object' && record.source !== null) {
      return { ...record, source: { ...(record.source as Record<string, unknown>), data: '' } };
    }
    return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, withoutMediaData(item)]));
  }
  return value;
}

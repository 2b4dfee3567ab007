import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';

/**
 * Real media made at test time: photos and PNGs with sharp, PDFs with pdf-lib, and voice
 * notes spoken by espeak-ng and encoded to Ogg/Opus by opusenc (Debian's espeak-ng and
 * opus-tools, which .ci/run installs), as WhatsApp records them.
 */

const run = promisify(execFile);

/** The webhook fields Twilio posts for attachments: MediaUrlN and MediaContentTypeN. */
export function mediaFields(attachments: Array<{ url: string; type: string }>): Record<string, string> {
  return Object.fromEntries(attachments.flatMap((attachment, index) => [[`MediaUrl${index}`, attachment.url], [`MediaContentType${index}`, attachment.type]]));
}

/** A photo: a noisy gradient (so it compresses like a real one), JPEG at `quality`. */
export async function photo(width: number, height: number, quality = 85): Promise<Buffer> {
  const channels = 3;
  const pixels = Buffer.alloc(width * height * channels);
  const noise = randomBytes(pixels.length);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * channels;
      pixels[offset] = Math.floor((x / width) * 200) + (noise[offset]! % 56);
      pixels[offset + 1] = Math.floor((y / height) * 200) + (noise[offset + 1]! % 56);
      pixels[offset + 2] = 120 + (noise[offset + 2]! % 100);
    }
  }
  return sharp(pixels, { raw: { width, height, channels } }).jpeg({ quality }).toBuffer();
}

/** A small PNG with transparency (a screenshot, a sticker). */
async function transparentPng(width = 300, height = 200): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 20, g: 120, b: 200, alpha: 0.5 } } }).png().toBuffer();
}

/** A PNG cut off halfway (a broken upload): its signature and header are right, its image data is not. */
export async function corruptPng(): Promise<Buffer> {
  const png = await sharp(randomBytes(128 * 128 * 3), { raw: { width: 128, height: 128, channels: 3 } }).png().toBuffer();
  return png.subarray(0, Math.floor(png.length / 2));
}

/** An HTML error page, as a misconfigured server might serve under image/jpeg. */
export const HTML_PAGE = Buffer.from('<!DOCTYPE html><html><head><title>Error</title></head><body><h1>Not Found</h1></body></html>');

/** The start of a HEIC file (an iPhone photo sent as a file): enough for its type to be recognised. */
export function heicFile(): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.from([0, 0, 0, 0]), Buffer.from('mif1heic')]);
  return Buffer.concat([ftyp, randomBytes(2048)]);
}

/** A PDF with one page per entry of `pages`, each showing its text. */
export async function pdf(pages: string[]): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = document.addPage([595, 842]);
    text.split('\n').forEach((line, index) => page.drawText(line, { x: 50, y: 780 - index * 18, size: 12, font }));
  }
  return Buffer.from(await document.save());
}

const voiceCache = new Map<string, Buffer>();

/** A voice note saying `text`: espeak-ng speech, encoded as Ogg/Opus by opusenc (as WhatsApp sends them). */
export async function voiceNote(text: string): Promise<Buffer> {
  const cached = voiceCache.get(text);
  if (cached) return cached;
  const directory = await mkdtemp(join(tmpdir(), 'herald-voice-'));
  try {
    await run('espeak-ng', ['-w', join(directory, 'speech.wav'), text]);
    await run('opusenc', ['--quiet', join(directory, 'speech.wav'), join(directory, 'voice.ogg')]);
    const ogg = await readFile(join(directory, 'voice.ogg'));
    voiceCache.set(text, ogg);
    return ogg;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** A long Ogg/Opus recording (quiet room tone) of `seconds`, encoded by opusenc at its lowest cost settings. */
export async function longVoiceNote(seconds: number): Promise<Buffer> {
  const directory = await mkdtemp(join(tmpdir(), 'herald-voice-'));
  try {
    const rate = 8000;
    const samples = Buffer.alloc(seconds * rate * 2);
    // Faint noise rather than digital silence, so the encoder writes real frames.
    const noise = randomBytes(samples.length / 2);
    for (let index = 0; index < noise.length; index += 1) samples.writeInt16LE((noise[index]! % 16) - 8, index * 2);
    await writeFile(join(directory, 'long.wav'), Buffer.concat([wavHeader(samples.length, rate), samples]));
    await run('opusenc', ['--quiet', '--bitrate', '6', '--comp', '0', join(directory, 'long.wav'), join(directory, 'long.ogg')], { maxBuffer: 1 << 20 });
    return await readFile(join(directory, 'long.ogg'));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * An AMR-NB voice note (MMS), `seconds` long: the AMR storage format's header and 12.2 kbit/s
 * frames. Debian's ffmpeg decodes AMR but has no encoder for it, so the frames are written
 * here; they decode to noise, which is all a conversion test needs.
 */
export function amrVoiceNote(seconds = 2): Buffer {
  const frames = Array.from({ length: seconds * 50 }, () => Buffer.concat([Buffer.from([0x3c]), randomBytes(31)]));
  return Buffer.concat([Buffer.from('#!AMR\n'), ...frames]);
}

function wavHeader(dataBytes: number, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

import { fileTypeFromBuffer } from 'file-type';
import { trimStartOf } from '../shared/text-ends.js';

/** What Herald does with an attachment, by what its bytes really are. */
export type MediaKind =
  /** JPEG, PNG, WebP, GIF: downscaled, then an image block. */
  | { kind: 'image'; mediaType: 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif' }
  /** A PDF: a document block. */
  | { kind: 'pdf'; mediaType: 'application/pdf' }
  /** Audio the transcription endpoint takes as it is (Ogg/Opus, MP3, M4A, WAV, WebM, FLAC). */
  | { kind: 'audio'; mediaType: string; extension: string }
  /** Audio it does not take (AMR from MMS, 3GPP): converted with ffmpeg first. */
  | { kind: 'audio-convert'; mediaType: string; extension: string }
  /** HEIC/HEIF/AVIF photos sent as files: Herald asks for them as photos. */
  | { kind: 'photo-file'; mediaType: string }
  /** A contact card (vCard, text): its contacts are imported. */
  | { kind: 'vcard'; mediaType: 'text/vcard' }
  /** Anything else (video, HTML, a corrupt file): not read. */
  | { kind: 'unsupported'; mediaType: string };

const images = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);
/** Formats OpenAI-compatible transcription endpoints accept (OpenAI's list; Groq and Whisper servers take the same). */
const transcribable: Record<string, string> = { ogg: 'audio/ogg', opus: 'audio/ogg', oga: 'audio/ogg', mp3: 'audio/mpeg', m4a: 'audio/mp4', mp4: 'audio/mp4', wav: 'audio/wav', webm: 'audio/webm', flac: 'audio/flac' };
/** Audio worth converting: AMR (MMS voice), 3GPP and AAC. */
const convertible: Record<string, string> = { amr: 'audio/amr', '3gp': 'audio/3gpp', '3g2': 'audio/3gpp2', aac: 'audio/aac' };
const photoFiles = new Set(['heic', 'heif', 'avif']);

/**
 * Classifies an attachment by its bytes (their magic numbers), never by the type the sender
 * or Twilio declared: a "JPEG" that is really an HTML page is unsupported, not an image.
 * `declaredType` only breaks the tie where the bytes are one container for many things
 * (an MP4 or WebM is audio only when it was sent as audio).
 */
export async function classifyMedia(bytes: Buffer, declaredType: string): Promise<MediaKind> {
  const detected = await fileTypeFromBuffer(bytes);
  // vCards are text: known by their first line (file-type knows them too), whatever type they were sent as.
  if ((!detected || detected.ext === 'vcf') && isVcard(bytes)) return { kind: 'vcard', mediaType: 'text/vcard' };
  if (!detected) return { kind: 'unsupported', mediaType: 'unknown' };
  const mime = detected.mime.split(';')[0]!.trim();
  if (images.has(mime)) return { kind: 'image', mediaType: mime as 'image/jpeg' };
  if (mime === 'application/pdf') return { kind: 'pdf', mediaType: 'application/pdf' };
  if (photoFiles.has(detected.ext)) return { kind: 'photo-file', mediaType: mime };
  const declaredAudio = declaredType.toLowerCase().startsWith('audio/');
  const ext = detected.ext === 'opus' ? 'ogg' : detected.ext;
  // Containers shared with video count as audio only when sent as audio (a voice note, a recording).
  const audioLike = mime.startsWith('audio/') || ((ext === 'webm' || ext === 'mp4' || ext === 'm4a' || ext === '3gp' || ext === 'ogg') && declaredAudio);
  if (audioLike && transcribable[ext]) return { kind: 'audio', mediaType: transcribable[ext], extension: ext };
  if (audioLike && convertible[ext]) return { kind: 'audio-convert', mediaType: convertible[ext], extension: ext };
  return { kind: 'unsupported', mediaType: mime };
}

/** Whether text bytes start as a vCard does (after a byte-order mark and blank lines): BEGIN:VCARD. */
function isVcard(bytes: Buffer): boolean {
  const firstLine = bytes.subarray(0, 200).toString('utf8').split(/\r?\n/).find((line) => line.trim() !== '') ?? '';
  return trimStartOf(firstLine, '\uFEFF').trim().toUpperCase() === 'BEGIN:VCARD';
}

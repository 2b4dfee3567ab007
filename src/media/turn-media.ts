import type { PrismaClient } from '../db/prisma-types.js';
import type { MediaStatus } from '../generated/prisma/client.js';
import type { TurnAttachment } from '../context/orchestrator-context.js';
import type { Logger } from '../logging/logger.js';
import type { Clock } from '../shared/clock.js';
import { estimateTokens } from '../shared/tokens.js';
import { convertToWav } from './audio-converter.js';
import { audioDurationSeconds } from './audio-duration.js';
import { prepareImage } from './image-preparer.js';
import { readPin, storedPinSchema, type PinReading } from './location.js';
import { importContactCard, type ContactCards } from './contact-card.js';
import { classifyMedia } from './media-kind.js';
import { mediaReply } from '../texts/media-replies.js';
import { inspectPdf, PDF_MAX_BYTES, PDF_MAX_PAGES } from './pdf-inspector.js';
import type { Transcriber } from './transcriber.js';
import type { MediaFetchResult } from './twilio-media-fetcher.js';

/** Downloads media (TwilioMediaFetcher). */
export interface MediaSource {
  fetch(url: string, signal?: AbortSignal): Promise<MediaFetchResult>;
}

/** Deletes media once read (TwilioMediaDeleter, when TWILIO_DELETE_MEDIA). */
export interface MediaRemover {
  delete(url: string): Promise<boolean>;
}

/** What preparing a turn's media needs. */
export interface TurnMediaDependencies {
  prisma: PrismaClient;
  source: MediaSource;
  remover?: MediaRemover | undefined;
  /** Where a contact card's contacts go; undefined: contact cards are not read. */
  cards?: ContactCards | undefined;
  /** Undefined: no TRANSCRIPTION_BASE_URL; voice notes get a polite reply instead. */
  transcriber?: Transcriber | undefined;
  settings: {
    maxBytes: number;
    voiceMaxSeconds: number;
    ffmpegPath: string;
    /** USD per minute of audio transcribed (TRANSCRIPTION_PRICE_PER_MINUTE). */
    transcriptionPricePerMinute: number;
  };
  clock: Clock;
  logger: Logger;
}

/** A message of the turn, as stored. */
export interface TurnMessage {
  id: string;
  content: string;
  transcribed: boolean;
  location: unknown;
}

/** Everything a turn's attachments, voice notes and pin gave, for the model and for the reply. */
export interface PreparedMedia {
  /** The turn's text, message by message: typed, or a voice note's transcript. */
  parts: Array<{ text: string; spoken: boolean }>;
  /** Photos and PDFs for the model. */
  attachments: TurnAttachment[];
  /** For the model: what became of attachments it does not see. */
  modelNotes: string[];
  /** Herald's own lines for the user (too large, not a photo, could not download…). */
  userNotes: string[];
  /** The last pin of the turn, read. */
  pin?: PinReading | undefined;
  /** A voice note could not be transcribed (the endpoint failed): one short apology. */
  transcriptionFailed: boolean;
  transcriptionSeconds: number;
  /** What transcription cost, in USD. */
  costUsd: number;
  /** Something for the model to read: text, a transcript, an attachment or a pin. */
  readable: boolean;
  /** Deletes the downloaded media from Twilio (after the turn committed); never throws. */
  release: () => Promise<void>;
}

/** The API takes 32 MB per request: what one turn sends in attachments is held well under it. */
const TURN_ATTACHMENT_BYTES = 16 * 1024 * 1024;
/** The API reads at most 100 PDF pages per request. */
const TURN_PDF_PAGES = 100;
/** Downloads at once. */
const CONCURRENCY = 3;

type Row = { id: string; messageId: string; position: number; url: string; declaredType: string };
type RowOutcome = { status: MediaStatus; contentType?: string; sizeBytes?: number; sha256?: string; durationSeconds?: number; problem?: string };

/**
 * A turn's media, made ready for the model (docs/ARCHITECTURE.md "Media and web"): each attachment is
 * downloaded from Twilio (TwilioMediaFetcher), recognised by its bytes, and then a photo is
 * downscaled, a PDF checked, a voice note transcribed (its transcript becomes the message's
 * text, stored and marked as spoken); anything else gets a clear line for the user. Only
 * metadata is stored (type, size, SHA-256); the bytes live in this object for the turn.
 */
export class TurnMedia {
  constructor(private readonly deps: TurnMediaDependencies) {}

  /** Whether a stored message carries anything beyond its text (attachments or a pin). */
  static carriesMedia(message: { numMedia: number; location: unknown }): boolean {
    return message.numMedia > 0 || (message.location !== null && message.location !== undefined);
  }

  async prepare(
    turn: { turnId: string; user: { id: string; timezone: string; language: string | null }; messages: TurnMessage[] },
    signal: AbortSignal,
  ): Promise<PreparedMedia> {
    const { user } = turn;
    const language = user.language;
    const typed = turn.messages.map((message) => message.content).join(' ');
    const rows: Row[] = await this.deps.prisma.messageMedia.findMany({
      where: { messageId: { in: turn.messages.map((message) => message.id) } },
      select: { id: true, messageId: true, position: true, url: true, declaredType: true },
    });
    const order = new Map(turn.messages.map((message, index) => [message.id, index]));
    rows.sort((left, right) => order.get(left.messageId)! - order.get(right.messageId)! || left.position - right.position);
    const alreadyTranscribed = new Set(turn.messages.filter((message) => message.transcribed).map((message) => message.id));

    const state = {
      // By attachment index, so notes and blocks keep the attachments' order whatever order downloads finish in.
      attachments: [] as Array<TurnAttachment | undefined>,
      modelNotes: [] as string[][],
      userNotes: [] as string[][],
      transcripts: new Map<string, string[]>(),
      transcriptionFailed: false,
      transcriptionSeconds: 0,
      sentBytes: 0,
      pdfPages: 0,
      downloaded: [] as Row[],
    };
    const single = rows.length === 1;
    const what = (row: Row, index: number) => (single ? mediaReply(kindOf(row.declaredType), language) : mediaReply('numbered', language, { n: index + 1 }));
    const note = (row: Row, index: number, reply: Parameters<typeof mediaReply>[0], values: Record<string, string | number>, forModel: string) => {
      (state.userNotes[index] ??= []).push(mediaReply(reply, language, { what: what(row, index), ...values }, typed));
      (state.modelNotes[index] ??= []).push(`Attachment ${index + 1} (sent as ${row.declaredType}) was not read: ${forModel}. Herald has told the user.`);
    };

    const handle = async (row: Row, index: number): Promise<RowOutcome> => {
      // A retried turn (a crash after transcribing) must not pay for the same voice note twice.
      if (alreadyTranscribed.has(row.messageId) && row.declaredType.startsWith('audio/')) return { status: 'ready' };
      const fetched = await this.deps.source.fetch(row.url, signal);
      if (!fetched.ok) {
        if (fetched.problem === 'too_large') {
          note(row, index, 'tooLarge', { limit: megabytes(this.deps.settings.maxBytes) }, `over the ${megabytes(this.deps.settings.maxBytes)} limit`);
          return { status: 'refused', problem: 'too_large', ...(fetched.sizeBytes ? { sizeBytes: fetched.sizeBytes } : {}) };
        }
        if (fetched.problem === 'empty' && kindOf(row.declaredType) === 'voice') {
          note(row, index, 'voiceEmpty', {}, 'it was empty (0 bytes)');
          return { status: 'refused', problem: 'empty', sizeBytes: 0 };
        }
        note(row, index, 'downloadFailed', {}, `it could not be downloaded (${fetched.problem})`);
        return { status: 'failed', problem: fetched.problem };
      }
      state.downloaded.push(row);
      const base = { contentType: 'unknown', sizeBytes: fetched.sizeBytes, sha256: fetched.sha256 };
      const kind = await classifyMedia(fetched.bytes, row.declaredType);
      base.contentType = kind.mediaType;
      switch (kind.kind) {
        case 'image': {
          const image = await prepareImage(fetched.bytes);
          if ('problem' in image) {
            note(row, index, 'corrupt', {}, 'the image is damaged');
            return { ...base, status: 'refused', problem: 'corrupt' };
          }
          if (!this.fits(state, image.data.length, 0)) {
            note(row, index, 'tooMuch', {}, 'the message carried more than one request can hold');
            return { ...base, status: 'refused', problem: 'too_much' };
          }
          state.attachments[index] = ({ id: `a${index + 1}`, kind: 'photo', mediaType: image.mediaType, data: image.data.toString('base64'), label: 'photo' });
          return { ...base, status: 'ready' };
        }
        case 'pdf': {
          if (fetched.bytes.length > PDF_MAX_BYTES) {
            note(row, index, 'tooLarge', { limit: megabytes(PDF_MAX_BYTES) }, `the PDF is over ${megabytes(PDF_MAX_BYTES)}`);
            return { ...base, status: 'refused', problem: 'too_large' };
          }
          const pdf = await inspectPdf(fetched.bytes);
          if (!pdf.ok) {
            if (pdf.problem === 'too_many_pages') note(row, index, 'pdfPages', { pages: pdf.pages ?? 0, max: PDF_MAX_PAGES }, `it has ${pdf.pages} pages (the limit is ${PDF_MAX_PAGES})`);
            else if (pdf.problem === 'encrypted') note(row, index, 'pdfLocked', {}, 'it is password-protected');
            else note(row, index, 'corrupt', {}, 'the PDF is damaged');
            return { ...base, status: 'refused', problem: `pdf_${pdf.problem}` };
          }
          if (!this.fits(state, fetched.bytes.length, pdf.pages)) {
            note(row, index, 'tooMuch', {}, 'the message carried more than one request can hold');
            return { ...base, status: 'refused', problem: 'too_much' };
          }
          state.attachments[index] = ({ id: `a${index + 1}`, kind: 'pdf', mediaType: 'application/pdf', data: fetched.bytes.toString('base64'), label: `PDF, ${pdf.pages} page${pdf.pages === 1 ? '' : 's'}` });
          return { ...base, status: 'ready' };
        }
        case 'audio':
        case 'audio-convert':
          return { ...base, ...(await this.voice(row, index, fetched.bytes, kind, state, note, signal)) };
        case 'vcard': {
          if (!this.deps.cards) {
            note(row, index, 'unsupported', { type: 'vCard' }, 'contact cards are not read on this deployment');
            return { ...base, status: 'refused', problem: 'unsupported' };
          }
          const card = await importContactCard(this.deps.cards, turn.user.id, fetched.bytes, { stored: language, typed, what: what(row, index), attachment: index + 1 });
          (state.userNotes[index] ??= []).push(...card.userLines);
          (state.modelNotes[index] ??= []).push(card.modelNote);
          this.deps.logger.info({ mediaId: row.id, ...card.log }, 'contact card imported');
          return card.saved > 0 ? { ...base, status: 'ready' } : { ...base, status: 'refused', problem: 'no_contacts' };
        }
        case 'photo-file':
          note(row, index, 'photoFile', { type: shortType(kind.mediaType) }, `it is a ${kind.mediaType} file, which Herald does not read`);
          return { ...base, status: 'refused', problem: 'photo_file' };
        case 'unsupported':
          note(row, index, 'unsupported', { type: shortType(kind.mediaType === 'unknown' ? row.declaredType : kind.mediaType) }, `its content (${kind.mediaType}) is not a photo, PDF or voice note`);
          return { ...base, status: 'refused', problem: 'unsupported' };
      }
    };

    const outcomes = await mapLimited(rows, CONCURRENCY, async (row, index) => {
      try {
        return await handle(row, index);
      } catch (error) {
        if (signal.aborted) throw error;
        this.deps.logger.error({ mediaId: row.id, error: error instanceof Error ? error.message : String(error) }, 'preparing an attachment failed');
        note(row, index, 'downloadFailed', {}, 'Herald failed to process it');
        return { status: 'failed' as const, problem: 'internal' };
      }
    });
    const attachments = state.attachments.filter((attachment): attachment is TurnAttachment => attachment !== undefined);
    await Promise.all(rows.map((row, index) => this.record(row, outcomes[index]!)));
    await this.storeTranscripts(turn.messages, state.transcripts);

    const parts = turn.messages.flatMap((message) => {
      const spoken = state.transcripts.get(message.id) ?? [];
      return [
        ...(message.content.trim() ? [{ text: message.content.trim(), spoken: message.transcribed }] : []),
        ...spoken.map((text) => ({ text, spoken: true })),
      ];
    });
    const pins = turn.messages.flatMap((message) => {
      const parsed = storedPinSchema.safeParse(message.location);
      return parsed.success ? [parsed.data] : [];
    });
    const lastPin = pins.at(-1);
    const pin = lastPin ? readPin(lastPin, user, typed, this.deps.clock.now()) : undefined;
    const costUsd = (state.transcriptionSeconds / 60) * this.deps.settings.transcriptionPricePerMinute;
    this.deps.logger.info(
      {
        attachments: rows.length,
        read: attachments.length,
        refused: outcomes.filter((outcome) => outcome.status !== 'ready').length,
        transcriptionSeconds: state.transcriptionSeconds,
        pin: Boolean(pin),
      },
      'turn media prepared',
    );
    const downloaded = state.downloaded;
    return {
      parts,
      attachments,
      modelNotes: state.modelNotes.flat(),
      userNotes: state.userNotes.flat(),
      pin,
      transcriptionFailed: state.transcriptionFailed,
      transcriptionSeconds: state.transcriptionSeconds,
      costUsd,
      readable: parts.length > 0 || attachments.length > 0 || pin !== undefined,
      release: () => this.release(downloaded),
    };
  }

  /** A voice note: checked, converted when needed, measured, transcribed. */
  private async voice(
    row: Row,
    index: number,
    bytes: Buffer,
    kind: { kind: 'audio' | 'audio-convert'; mediaType: string; extension: string },
    state: { transcripts: Map<string, string[]>; transcriptionFailed: boolean; transcriptionSeconds: number },
    note: (row: Row, index: number, reply: Parameters<typeof mediaReply>[0], values: Record<string, string | number>, forModel: string) => void,
    signal: AbortSignal,
  ): Promise<RowOutcome> {
    const { settings, transcriber } = this.deps;
    if (!transcriber) {
      note(row, index, 'voiceOff', {}, 'voice notes are not transcribed on this deployment');
      return { status: 'refused', problem: 'transcription_off' };
    }
    let audio = bytes;
    let file = { name: `voice-note.${kind.extension}`, mediaType: kind.mediaType };
    if (kind.kind === 'audio-convert') {
      // 16 kHz mono 16-bit WAV is 32 KB a second: room for the longest voice note allowed, and no more.
      const converted = await convertToWav(bytes, { ffmpegPath: settings.ffmpegPath, timeoutMs: 30_000, maxOutputBytes: (settings.voiceMaxSeconds + 60) * 32_000 + 1024, signal });
      if (!converted.ok) {
        if (converted.problem === 'ffmpeg_missing') this.deps.logger.error({ ffmpeg: settings.ffmpegPath }, 'ffmpeg is not installed: AMR and 3GPP voice notes cannot be transcribed (install Debian\'s ffmpeg, or set FFMPEG_PATH)');
        note(row, index, 'voiceUnreadable', {}, `it could not be converted (${converted.problem})`);
        return { status: 'refused', problem: `convert_${converted.problem}` };
      }
      audio = converted.wav;
      file = { name: 'voice-note.wav', mediaType: 'audio/wav' };
    }
    const duration = await audioDurationSeconds(audio, file.mediaType);
    if (duration === undefined) {
      note(row, index, 'voiceUnreadable', {}, 'the audio could not be read');
      return { status: 'refused', problem: 'unreadable_audio' };
    }
    const seconds = Math.max(1, Math.round(duration));
    if (seconds > settings.voiceMaxSeconds) {
      note(row, index, 'voiceTooLong', { minutes: Math.round(seconds / 60), max: Math.round(settings.voiceMaxSeconds / 60) }, `it is ${seconds} s long (the limit is ${settings.voiceMaxSeconds} s)`);
      return { status: 'refused', problem: 'too_long', durationSeconds: seconds };
    }
    const result = await transcriber.transcribe(audio, file, signal);
    if (!result.ok) {
      this.deps.logger.warn({ mediaId: row.id, problem: result.problem, detail: result.detail, model: transcriber.model }, 'voice note not transcribed');
      if (result.problem === 'nothing_heard') {
        state.transcriptionSeconds += seconds;
        note(row, index, 'nothingHeard', {}, 'no words were heard in it');
        return { status: 'refused', problem: 'nothing_heard', durationSeconds: seconds };
      }
      state.transcriptionFailed = true;
      return { status: 'failed', problem: `transcription_${result.problem}`, durationSeconds: seconds };
    }
    state.transcriptionSeconds += seconds;
    const list = state.transcripts.get(row.messageId) ?? [];
    list.push(result.text);
    state.transcripts.set(row.messageId, list);
    return { status: 'ready', durationSeconds: seconds };
  }

  /** Whether one more attachment of this size (and PDF pages) still fits the request. */
  private fits(state: { sentBytes: number; pdfPages: number }, bytes: number, pages: number): boolean {
    if (state.sentBytes + bytes > TURN_ATTACHMENT_BYTES || state.pdfPages + pages > TURN_PDF_PAGES) return false;
    state.sentBytes += bytes;
    state.pdfPages += pages;
    return true;
  }

  private async record(row: Row, outcome: RowOutcome): Promise<void> {
    await this.deps.prisma.messageMedia.update({
      where: { id: row.id },
      data: {
        status: outcome.status,
        problem: outcome.problem ?? null,
        ...(outcome.contentType !== undefined ? { contentType: outcome.contentType } : {}),
        ...(outcome.sizeBytes !== undefined ? { sizeBytes: outcome.sizeBytes } : {}),
        ...(outcome.sha256 !== undefined ? { sha256: outcome.sha256 } : {}),
        ...(outcome.durationSeconds !== undefined ? { durationSeconds: outcome.durationSeconds } : {}),
      },
    });
  }

  /** A transcript becomes its message's text, marked as spoken: the history shows what the user said. */
  private async storeTranscripts(messages: TurnMessage[], transcripts: Map<string, string[]>): Promise<void> {
    for (const message of messages) {
      const spoken = transcripts.get(message.id);
      if (!spoken || spoken.length === 0) continue;
      const content = [message.content.trim(), ...spoken].filter(Boolean).join('\n\n');
      await this.deps.prisma.message.update({ where: { id: message.id }, data: { content, transcribed: true, tokenCount: estimateTokens(content) } });
    }
  }

  private async release(rows: Row[]): Promise<void> {
    const remover = this.deps.remover;
    if (!remover) return;
    for (const row of rows) {
      const deleted = await remover.delete(row.url).catch(() => false);
      if (deleted) await this.deps.prisma.messageMedia.updateMany({ where: { id: row.id }, data: { deletedAt: this.deps.clock.now() } }).catch(() => undefined);
    }
  }
}

/** How the user is told about an attachment, by the type Twilio declared. */
function kindOf(declaredType: string): 'photo' | 'pdf' | 'voice' | 'contactCard' | 'attachment' {
  const type = declaredType.toLowerCase();
  if (type.startsWith('image/')) return 'photo';
  if (type === 'application/pdf') return 'pdf';
  if (type.startsWith('audio/')) return 'voice';
  if (type === 'text/vcard' || type === 'text/x-vcard' || type === 'text/directory') return 'contactCard';
  return 'attachment';
}

function shortType(mediaType: string): string {
  const subtype = mediaType.split('/')[1] ?? mediaType;
  return subtype.replace(/^x-/, '').split(';')[0]!.toUpperCase();
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/** `work` over `items`, at most `limit` at once, results in the items' order. */
async function mapLimited<Item, Result>(items: Item[], limit: number, work: (item: Item, index: number) => Promise<Result>): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(lanes);
  return results;
}

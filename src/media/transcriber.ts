import OpenAI, { toFile } from 'openai';
import { z } from 'zod';

/** An OpenAI-compatible transcription endpoint (TRANSCRIPTION_BASE_URL and friends). */
export interface TranscriberOptions {
  /** e.g. https://api.openai.com/v1, https://api.groq.com/openai/v1, or a self-hosted Whisper server. */
  baseUrl: string;
  /** Unset for servers that need none. */
  apiKey?: string | undefined;
  model: string;
  timeoutMs: number;
}

/** A transcription's outcome: the words heard, or why there are none. */
export type TranscriptionResult =
  | { ok: true; text: string }
  | { ok: false; problem: 'rate_limited' | 'unavailable' | 'rejected' | 'invalid_response' | 'timeout' | 'nothing_heard'; detail: string };

/** What the endpoint answers with `response_format: "json"`. */
const transcriptionSchema = z.object({ text: z.string() });

/**
 * Voice notes to text through `POST {base}/audio/transcriptions` (multipart), the API that
 * OpenAI, Groq and self-hosted Whisper servers all speak, with the official `openai` client.
 * A 429 or 5xx is retried once (the client's backoff, honouring Retry-After); what comes
 * back is checked, so a server answering nonsense is a failure, not an empty transcript.
 */
export class Transcriber {
  private readonly client: OpenAI;

  constructor(private readonly options: TranscriberOptions) {
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // The client insists on a key; servers that take none ignore it.
      apiKey: options.apiKey ?? 'no-key',
      timeout: options.timeoutMs,
      maxRetries: 1,
    });
  }

  /** The model requests go to, for logs. */
  get model(): string {
    return this.options.model;
  }

  async transcribe(audio: Buffer, file: { name: string; mediaType: string }, signal?: AbortSignal): Promise<TranscriptionResult> {
    try {
      const upload = await toFile(audio, file.name, { type: file.mediaType });
      const answer: unknown = await this.client.audio.transcriptions.create({ file: upload, model: this.options.model, response_format: 'json' }, signal ? { signal } : undefined);
      const parsed = transcriptionSchema.safeParse(answer);
      if (!parsed.success) return { ok: false, problem: 'invalid_response', detail: 'the answer had no "text"' };
      const text = parsed.data.text.replace(/\s+/g, ' ').trim();
      if (!text) return { ok: false, problem: 'nothing_heard', detail: 'the transcript is empty' };
      return { ok: true, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof OpenAI.APIConnectionTimeoutError) return { ok: false, problem: 'timeout', detail: `no answer within ${this.options.timeoutMs} ms` };
      if (error instanceof OpenAI.APIError && error.status !== undefined) {
        if (error.status === 429) return { ok: false, problem: 'rate_limited', detail: 'HTTP 429 (after one retry)' };
        if (error.status >= 500) return { ok: false, problem: 'unavailable', detail: `HTTP ${error.status}` };
        return { ok: false, problem: 'rejected', detail: `HTTP ${error.status}` };
      }
      // A body that is not JSON (its parser's message could quote the transcript: not logged), a refused connection.
      if (error instanceof SyntaxError) return { ok: false, problem: 'invalid_response', detail: 'the answer was not JSON' };
      return { ok: false, problem: 'unavailable', detail: error instanceof Error ? error.message.slice(0, 200) : String(error) };
    }
  }
}

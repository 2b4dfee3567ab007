import { createHash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One upload the fake received, checked. */
export interface RecordedTranscription {
  model: string;
  fileName: string;
  /** The file part's Content-Type. */
  fileType: string;
  /** What the bytes are, by their magic numbers: "ogg", "wav", "webm", "mp3", or "unknown". */
  format: string;
  bytes: Buffer;
  sha256: string;
  responseFormat: string | undefined;
  authorization: string | undefined;
}

/** One scripted answer. */
export type ScriptedTranscription =
  | { text: string }
  | { status: number; retryAfterSeconds?: number; message?: string }
  /** Exactly this body, as application/json (nonsense included). */
  | { rawJson: string };

/**
 * An OpenAI-compatible transcription endpoint (`POST /v1/audio/transcriptions`, multipart),
 * for running the real `openai` client against. It checks what a real one checks: a Bearer
 * key, a `model`, a `file` part whose bytes are audio in a format the endpoint takes (Ogg,
 * WAV, WebM, MP3, M4A, FLAC; AMR is refused with 400 as OpenAI refuses it). Answers are
 * scripted; an unscripted upload is a 500 naming it, so a test that forgot fails loudly.
 */
export class FakeTranscriptionServer {
  readonly requests: RecordedTranscription[] = [];
  private readonly queue: ScriptedTranscription[] = [];
  private readonly events = new EventEmitter();

  private constructor(
    private readonly server: Server,
    /** The base URL to configure (TRANSCRIPTION_BASE_URL), e.g. http://127.0.0.1:4000/v1. */
    readonly url: string,
    readonly apiKey: string,
  ) {
    this.events.setMaxListeners(0);
  }

  static async start(apiKey = 'test-transcription-key'): Promise<FakeTranscriptionServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const fake = new FakeTranscriptionServer(server, `http://127.0.0.1:${port}/v1`, apiKey);
    server.on('request', (request, response) => void fake.handle(request, response));
    return fake;
  }

  enqueue(...answers: ScriptedTranscription[]): void {
    this.queue.push(...answers);
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    if (request.method !== 'POST' || path !== '/v1/audio/transcriptions') return error(response, 404, `no route for ${request.method} ${path}`);
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) return error(response, 401, 'Incorrect API key provided');
    let form: FormData;
    try {
      form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': request.headers['content-type'] ?? '' }, body }).formData();
    } catch {
      return error(response, 400, 'the body must be multipart/form-data');
    }
    const file = form.get('file');
    const model = form.get('model');
    if (!(file instanceof Blob) || typeof model !== 'string' || !model) return error(response, 400, "'file' and 'model' are required");
    const bytes = Buffer.from(await file.arrayBuffer());
    const format = audioFormat(bytes);
    const recorded: RecordedTranscription = {
      model,
      fileName: file instanceof File ? file.name : 'blob',
      fileType: file.type,
      format,
      bytes,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      responseFormat: typeof form.get('response_format') === 'string' ? (form.get('response_format') as string) : undefined,
      authorization: request.headers.authorization,
    };
    this.requests.push(recorded);
    this.events.emit('request');
    if (bytes.length === 0) return error(response, 400, 'Audio file is empty');
    if (format === 'unknown' || format === 'amr') return error(response, 400, `Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']`);
    const next = this.queue.shift();
    if (!next) return error(response, 500, `FakeTranscriptionServer: no scripted answer for upload #${this.requests.length}`);
    if ('status' in next) {
      const headers: Record<string, string> = next.retryAfterSeconds !== undefined ? { 'retry-after': String(next.retryAfterSeconds) } : {};
      return error(response, next.status, next.message ?? 'scripted failure', headers);
    }
    const payload = 'rawJson' in next ? next.rawJson : JSON.stringify({ text: next.text, usage: { type: 'duration', seconds: 1 } });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
  }
}

function error(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify({ error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', code: null } });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers }).end(payload);
}

/** What audio the bytes are, by their magic numbers. */
function audioFormat(bytes: Buffer): string {
  if (bytes.subarray(0, 4).toString('latin1') === 'OggS') return 'ogg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WAVE') return 'wav';
  if (bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return 'webm';
  if (bytes.subarray(0, 3).toString('latin1') === 'ID3' || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) return 'mp3';
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return 'm4a';
  if (bytes.subarray(0, 4).toString('latin1') === 'fLaC') return 'flac';
  if (bytes.subarray(0, 5).toString('latin1') === '#!AMR') return 'amr';
  return 'unknown';
}

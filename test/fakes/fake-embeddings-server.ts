import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Words that mean the same to this fake model: each group is one concept. A real embedding
 * model learns this from text; the fake is told, so tests of search "by meaning" (and the
 * labelled recall set) are deterministic. Words outside every group are their own concept.
 */
const CONCEPTS: string[][] = [
  ['restaurant', 'eatery', 'bistro', 'diner', 'trattoria', 'dinner', 'eat', 'ate', 'dining', 'food', 'cafe', 'brunch', 'lunch', 'meal'],
  ['recommend', 'recommended', 'suggest', 'suggested', 'tip', 'tipped', 'advice', 'told', 'rave', 'raved'],
  ['home', 'house', 'live', 'lives', 'living', 'flat', 'apartment', 'address', 'moved', 'reside'],
  ['wifi', 'internet', 'network', 'password', 'router', 'wireless', 'login'],
  ['doctor', 'physician', 'gp', 'clinic', 'dentist', 'appointment', 'medical', 'checkup'],
  ['car', 'vehicle', 'auto', 'garage', 'mechanic', 'tyres', 'tires', 'oil', 'parking', 'park'],
  ['book', 'novel', 'read', 'reading', 'author', 'library'],
  ['movie', 'film', 'cinema', 'watch', 'series', 'show', 'netflix'],
  ['gift', 'present', 'birthday', 'surprise'],
  ['idea', 'plan', 'concept', 'brainstorm', 'thought'],
  ['shop', 'store', 'business', 'customers', 'loyalty', 'stamps', 'sales'],
  ['recipe', 'cook', 'cooking', 'bake', 'baking', 'ingredients', 'dish', 'soup', 'cake'],
  ['trip', 'travel', 'vacation', 'holiday', 'flight', 'hotel', 'journey', 'visit'],
  ['money', 'bank', 'account', 'budget', 'pay', 'paid', 'bill', 'invoice', 'cost', 'price'],
  ['work', 'job', 'office', 'boss', 'colleague', 'meeting', 'project'],
  ['exercise', 'gym', 'run', 'running', 'workout', 'yoga', 'fitness', 'swim'],
  ['kid', 'kids', 'child', 'children', 'son', 'daughter', 'school', 'teacher'],
  ['music', 'song', 'band', 'concert', 'album', 'playlist'],
  ['plant', 'garden', 'flowers', 'water', 'seeds', 'tomatoes'],
  ['pet', 'dog', 'cat', 'vet', 'puppy', 'kitten'],
  ['mom', 'mother', 'mum', 'mama', 'dad', 'father', 'parents'],
  ['laptop', 'computer', 'pc', 'notebook', 'macbook'],
  ['bike', 'bicycle', 'cycling'],
  ['mortgage', 'loan', 'interest', 'rate'],
  ['boiler', 'heater', 'hot', 'shower'],
  ['talk', 'presentation', 'slides', 'speech', 'conference'],
  ['code', 'combination', 'pin', 'lock'],
  ['schedule', 'timer', 'times', 'hours', 'timetable'],
  ['warranty', 'guarantee', 'guaranteed', 'receipt'],
];
const conceptOf = new Map<string, number>(CONCEPTS.flatMap((words, index) => words.map((word) => [word, index] as const)));

/** Words a real model gives little weight: the fake gives them none. */
const FUNCTION_WORDS = new Set(['the', 'and', 'for', 'with', 'was', 'that', 'this', 'are', 'did', 'does', 'which', 'what', 'who', 'she', 'her', 'his', 'him', 'they', 'you', 'your', 'about', 'from', 'get', 'got', 'have', 'has', 'had', 'where', 'when', 'how', 'our', 'its', 'not', 'but', 'all', 'any', 'can', 'will', 'just', 'into', 'there', 'their', 'then', 'than', 'some', 'one']);

/** A crude stem, so "restaurants" and "restaurant" are one word to the fake too. */
const stem = (word: string) => word.replace(/(ing|ed|es|s)$/u, '') || word;

/** The fake model's vector: a normalised bag of concepts, each hashed to a few dimensions. */
function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length < 3 || FUNCTION_WORDS.has(word)) continue;
    const concept = conceptOf.get(word) ?? conceptOf.get(stem(word));
    const key = concept !== undefined ? `concept:${concept}` : `word:${stem(word)}`;
    const digest = createHash('sha256').update(key).digest();
    for (let slot = 0; slot < 2; slot += 1) {
      const dimension = digest.readUInt32BE(slot * 4) % dimensions;
      vector[dimension]! += (digest[16 + slot]! & 1 ? 1 : -1) * (concept !== undefined ? 2 : 1);
    }
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

/** A request the fake received, as parsed. */
export interface EmbeddingsRequest {
  authorization: string | undefined;
  model: string;
  input: string[];
}

/** What the fake does with the next requests. */
export type EmbeddingsBehaviour = 'ok' | 'down' | 'slow' | 'wrong-length' | 'garbage';

/**
 * An OpenAI-compatible `POST /embeddings` as strict as the real ones: JSON only, a bearer
 * key, a model, `input` a non-empty array of non-empty strings (at most 2,048), each
 * answered in order with a vector and a usage count. Its behaviour can be switched to the
 * faults search must survive: down (503), slow (answers after `slowMs`), vectors of the
 * wrong length, or a body that is not JSON.
 */
export class FakeEmbeddingsServer {
  readonly requests: EmbeddingsRequest[] = [];
  behaviour: EmbeddingsBehaviour = 'ok';
  slowMs = 2_000;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly apiKey: string,
    readonly model: string,
    readonly dimensions: number,
  ) {}

  static async start(options: { apiKey?: string; model?: string; dimensions?: number } = {}): Promise<FakeEmbeddingsServer> {
    let fake: FakeEmbeddingsServer | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const reply = (status: number, body: unknown) => {
          if (response.destroyed) return;
          response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        };
        const error = (status: number, message: string) => reply(status, { error: { message, type: 'invalid_request_error' } });
        if (request.method !== 'POST' || request.url !== '/embeddings') return error(404, 'not found');
        if (request.headers.authorization !== `Bearer ${fake!.apiKey}`) return error(401, 'invalid api key');
        if (!String(request.headers['content-type']).startsWith('application/json')) return error(415, 'json only');
        let body: { model?: unknown; input?: unknown };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
        } catch {
          return error(400, 'body is not JSON');
        }
        if (body.model !== fake!.model) return error(404, `model ${String(body.model)} does not exist`);
        const input = body.input;
        if (!Array.isArray(input) || input.length === 0 || input.length > 2048 || !input.every((text) => typeof text === 'string' && text.length > 0)) {
          return error(400, 'input must be a non-empty array of non-empty strings');
        }
        fake!.requests.push({ authorization: request.headers.authorization, model: body.model as string, input: input as string[] });
        const answer = () => {
          const length = fake!.behaviour === 'wrong-length' ? fake!.dimensions - 1 : fake!.dimensions;
          reply(200, {
            object: 'list',
            model: fake!.model,
            data: (input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, length) })),
            usage: { prompt_tokens: (input as string[]).reduce((sum, text) => sum + Math.ceil(text.length / 4), 0), total_tokens: 0 },
          });
        };
        switch (fake!.behaviour) {
          case 'down':
            return error(503, 'service unavailable');
          case 'garbage':
            return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [1, 2');
          case 'slow':
            return void setTimeout(answer, fake!.slowMs).unref();
          default:
            return answer();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = new FakeEmbeddingsServer(server, (server.address() as AddressInfo).port, options.apiKey ?? 'test-embeddings-key', options.model ?? 'fake-embed-1', options.dimensions ?? 256);
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Every text embedded so far, in order. */
  embeddedTexts(): string[] {
    return this.requests.flatMap((request) => request.input);
  }

  reset(): void {
    this.requests.length = 0;
    this.behaviour = 'ok';
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

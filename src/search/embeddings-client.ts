import { z } from 'zod';
import { HeraldError } from '../shared/errors.js';
import { withoutTrailingSlashes } from '../shared/text-ends.js';

/** The embeddings service failed: down, too slow, refused, or answered vectors Herald cannot use. Search falls back to text. */
export class EmbeddingsUnavailable extends HeraldError {
  readonly blame = 'tool' as const;
}

/** Settings for an OpenAI-compatible `POST /embeddings` (OpenAI, Voyage, self-hosted servers). */
export interface EmbeddingsSettings {
  /** e.g. https://api.openai.com/v1 or https://api.voyageai.com/v1; `/embeddings` is appended. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The vector length every answer must have; unset: whatever the first answer has, then always that. */
  dimensions?: number | undefined;
  timeoutMs: number;
  /** USD per million input tokens (EMBEDDINGS_PRICE_PER_MTOK). */
  pricePerMillionTokens: number;
  /** Texts per request. */
  batchSize: number;
}

/** What one `embed` call returned and cost. */
export interface EmbeddingResult {
  vectors: number[][];
  tokens: number;
  costUsd: number;
}

const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number().finite()) })),
  usage: z.object({ prompt_tokens: z.number().int().nonnegative().optional(), total_tokens: z.number().int().nonnegative().optional() }).optional(),
});

/** The most of one text sent: embedding models read about 8,000 tokens, and a 20,000-character note is under that. */
const MAX_TEXT_CHARACTERS = 24_000;

/**
 * Turns texts into vectors through an OpenAI-compatible embeddings endpoint. Texts go in
 * batches of `batchSize`; every answer is checked (one vector per text, all of the expected
 * length, finite numbers), and anything else is an {@link EmbeddingsUnavailable}, never a
 * wrong vector stored. Only the user's own words and notes are ever sent (src/search/README.md).
 */
export class EmbeddingsClient {
  private dimensions: number | undefined;

  constructor(
    private readonly settings: EmbeddingsSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.dimensions = settings.dimensions;
  }

  /** The model name vectors are stored under: vectors of another model are never compared with these. */
  get model(): string {
    return this.settings.model;
  }

  /** Embeds `texts` in order; throws {@link EmbeddingsUnavailable} when the service cannot. */
  async embed(texts: string[], signal?: AbortSignal): Promise<EmbeddingResult> {
    const result: EmbeddingResult = { vectors: [], tokens: 0, costUsd: 0 };
    for (let start = 0; start < texts.length; start += this.settings.batchSize) {
      const batch = texts.slice(start, start + this.settings.batchSize).map((text) => text.slice(0, MAX_TEXT_CHARACTERS));
      const answer = await this.request(batch, signal);
      result.vectors.push(...answer.vectors);
      result.tokens += answer.tokens;
    }
    result.costUsd = (result.tokens / 1_000_000) * this.settings.pricePerMillionTokens;
    return result;
  }

  private async request(input: string[], signal?: AbortSignal): Promise<{ vectors: number[][]; tokens: number }> {
    const timeout = AbortSignal.timeout(this.settings.timeoutMs);
    let response: Response;
    try {
      response = await this.fetchImpl(`${withoutTrailingSlashes(this.settings.baseUrl)}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.settings.apiKey}` },
        body: JSON.stringify({ model: this.settings.model, input, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      const timedOut = timeout.aborted && !signal?.aborted;
      throw new EmbeddingsUnavailable(timedOut ? `the embeddings service did not answer within ${this.settings.timeoutMs} ms` : 'the embeddings service could not be reached', { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new EmbeddingsUnavailable(`the embeddings service answered HTTP ${response.status}`);
    }
    let parsed: z.infer<typeof responseSchema>;
    try {
      parsed = responseSchema.parse(await response.json());
    } catch (error) {
      throw new EmbeddingsUnavailable('the embeddings service answered something that is not a list of vectors', { cause: error });
    }
    if (parsed.data.length !== input.length) throw new EmbeddingsUnavailable(`the embeddings service answered ${parsed.data.length} vectors for ${input.length} texts`);
    const vectors = new Array<number[]>(input.length);
    for (const item of parsed.data) {
      if (item.index >= input.length || vectors[item.index]) throw new EmbeddingsUnavailable('the embeddings service answered vectors out of order');
      const expected = this.dimensions ?? item.embedding.length;
      if (item.embedding.length !== expected || expected === 0) {
        throw new EmbeddingsUnavailable(`the embeddings service answered a vector of length ${item.embedding.length}, expected ${expected}`);
      }
      vectors[item.index] = item.embedding;
    }
    // The first good answer fixes the length for this process: a service that later changes it is refused.
    this.dimensions ??= vectors[0]!.length;
    const usage = parsed.usage;
    const tokens = usage?.prompt_tokens ?? usage?.total_tokens ?? Math.ceil(input.reduce((sum, text) => sum + text.length, 0) / 4);
    return { vectors, tokens };
  }
}

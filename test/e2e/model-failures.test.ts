import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fallbackReply } from '../../src/texts/fallback-replies.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { parseScrape } from '../observability/scrape.js';

/**
 * When the model fails, the user still gets exactly one answer: a short apology from
 * src/orchestrator/fallback-replies.ts, never silence and never a raw error. The turn
 * records why (errorKind by blame), and the message counts as handled.
 */

const apology = fallbackReply('apology', null);
const tookTooLong = fallbackReply('timeout', null);

/** Sends one message from `phone`, waits for its reply, and returns it with the turn and the message rows. */
async function exchange(harness: HeraldHarness, phone: string, body: string) {
  const before = harness.twilio.messages.length;
  const response = await harness.inbound({ from: phone, body });
  expect(response.statusCode).toBe(200);
  const messages = await harness.replies(before + 1);
  const reply = messages.filter((message) => message.to === phone);
  expect(reply).toHaveLength(1);
  const { prisma } = harness.database;
  const user = await prisma.user.findUniqueOrThrow({ where: { phone } });
  const inbound = await prisma.message.findMany({ where: { userId: user.id, role: 'user' } });
  const turns = await prisma.turn.findMany({ where: { userId: user.id } });
  return { reply: reply[0]!, inbound, turns };
}

describe('model failures (no SDK retries)', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    // ANTHROPIC_MAX_RETRIES is 0 in the harness; metrics on, to see rate-limit waits.
    harness = await HeraldHarness.start({ env: { METRICS_TOKEN: 'model-failures-metrics-token' } });
  });
  afterAll(async () => {
    await harness.close();
  });

  // These messages name no agent, so the light planner (Haiku 5.5) takes them; unavailability falls back to its
  // fallback (Haiku 4.5). Only when that fails too does the user get the apology.
  const unavailable: Array<{ name: string; phone: string; answer: ScriptedAnthropicResponse }> = [
    { name: '500 internal error', phone: '+14155550301', answer: { error: { status: 500 } } },
    { name: '529 overloaded', phone: '+14155550302', answer: { error: { status: 529 } } },
  ];
  for (const { name, phone, answer } of unavailable) {
    it(`apologises once for ${name} from every model, and records a failed turn blamed on the model`, async () => {
      const requestsBefore = harness.anthropic.requests.length;
      harness.anthropic.enqueue(answer, answer);
      const { reply, inbound, turns } = await exchange(harness, phone, `please help (${name})`);

      expect(reply).toMatchObject({ to: phone, body: apology });
      expect(harness.anthropic.requests.slice(requestsBefore).map((request) => request.body.model)).toEqual(['claude-haiku-5-5', 'claude-haiku-4-5']);
      expect(turns).toHaveLength(1);
      expect(turns[0]).toMatchObject({ status: 'failed', errorKind: 'model', modelCalls: 1, models: [] });
      expect(turns[0]?.errorMessage).toBeTruthy();
      expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
    });
  }

  it('waits out a rate limit on every model instead of apologising: the turn answers late, and the wait shows in metrics', async () => {
    const phone = '+14155550303';
    const requestsBefore = harness.anthropic.requests.length;
    const limited: ScriptedAnthropicResponse = { error: { status: 429, retryAfterSeconds: 1 } };
    harness.anthropic.enqueue(limited, limited, { text: 'Here now, after the queue.' });
    const { reply, inbound, turns } = await exchange(harness, phone, 'please help (429 rate limited)');

    expect(reply).toMatchObject({ to: phone, body: 'Here now, after the queue.' });
    // Both models refused; after the retry-after the light planner was asked again.
    expect(harness.anthropic.requests.slice(requestsBefore).map((request) => request.body.model)).toEqual(['claude-haiku-5-5', 'claude-haiku-4-5', 'claude-haiku-5-5']);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ status: 'succeeded', errorKind: null });
    expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
    const samples = parseScrape((await harness.herald.metrics.scrape()).body);
    const waits = samples.filter((sample) => sample.name === 'herald_model_rate_limit_waits_total');
    expect(waits).toEqual([{ name: 'herald_model_rate_limit_waits_total', labels: { model: 'claude-haiku-5-5' }, value: 1 }]);
    // At least the second the service asked for (plus up to a quarter of jitter).
    expect(samples.find((sample) => sample.name === 'herald_model_rate_limit_wait_seconds_total')?.value).toBeGreaterThanOrEqual(1);
    expect(samples.filter((sample) => sample.name === 'herald_model_calls_total' && sample.labels.outcome === 'rate_limited').reduce((sum, sample) => sum + sample.value, 0)).toBe(2);
    // Every 429 the service answered is counted at the HTTP level (the SDK's own retries included).
    expect(samples.filter((sample) => sample.name === 'herald_model_rate_limited_responses_total').map((sample) => [sample.labels.model, sample.value])).toEqual([
      ['claude-haiku-5-5', 1],
      ['claude-haiku-4-5', 1],
    ]);
  });

  // A malformed request or a nonsense answer would be the same from any model: no fallback.
  const notUnavailable: Array<{ name: string; phone: string; answer: ScriptedAnthropicResponse }> = [
    { name: '400 rejected request', phone: '+14155550304', answer: { error: { status: 400 } } },
    { name: 'a response with no content blocks', phone: '+14155550305', answer: { content: [] } },
    { name: 'a response with only whitespace text', phone: '+14155550306', answer: { text: '  \n ' } },
  ];
  for (const { name, phone, answer } of notUnavailable) {
    it(`apologises once for ${name}, without trying another model`, async () => {
      const requestsBefore = harness.anthropic.requests.length;
      harness.anthropic.enqueue(answer);
      const { reply, inbound, turns } = await exchange(harness, phone, `please help (${name})`);

      expect(reply).toMatchObject({ to: phone, body: apology });
      expect(harness.anthropic.requests.length - requestsBefore).toBe(1);
      expect(turns[0]).toMatchObject({ status: 'failed', errorKind: 'model', modelCalls: 1 });
      expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
    });
  }

  it('answers with the fallback model when the primary is unavailable, and the turn records which model answered', async () => {
    const phone = '+14155550308';
    harness.anthropic.enqueue({ error: { status: 529 } }, { text: 'Hello from the fallback.' });
    const { reply, turns } = await exchange(harness, phone, 'hello?');

    expect(reply.body).toBe('Hello from the fallback.');
    expect(turns[0]).toMatchObject({ status: 'succeeded', errorKind: null, modelCalls: 1 });
    expect(turns[0]!.models).toEqual([expect.objectContaining({ model: 'claude-haiku-4-5', calls: 1 })]);
    expect(Number(turns[0]!.costUsd)).toBeGreaterThan(0);
  });

  it('answers normally again after a failure', async () => {
    const phone = '+14155550307';
    harness.anthropic.enqueue({ error: { status: 500 } }, { error: { status: 500 } }, { text: 'Back on my feet.' });
    const first = await exchange(harness, phone, 'hello?');
    expect(first.reply.body).toBe(apology);
    const before = harness.twilio.messages.length;
    await harness.inbound({ from: phone, body: 'hello again' });
    const [second] = (await harness.replies(before + 1)).slice(before);
    expect(second).toMatchObject({ to: phone, body: 'Back on my feet.' });
  });
});

describe('a model that never answers', () => {
  it('apologises after ANTHROPIC_TIMEOUT_MS, blaming a timeout', async () => {
    // No fallback here: this is about the timeout's blame, not about trying another model.
    const harness = await HeraldHarness.start({ env: { ANTHROPIC_TIMEOUT_MS: '300', MODEL_PLANNER_FALLBACK: 'none', MODEL_PLANNER_LIGHT_FALLBACK: 'none' } });
    try {
      harness.anthropic.enqueue({ hang: true });
      const started = performance.now();
      const { reply, inbound, turns } = await exchange(harness, '+14155550311', 'are you there?');
      const elapsed = performance.now() - started;

      expect(reply.body).toBe(tookTooLong);
      expect(elapsed).toBeGreaterThanOrEqual(300);
      // The request's own timeout cut it (not the plan's, two minutes away): its message says so.
      expect(turns[0]?.errorMessage).toBe('TimeoutError: the model did not answer in time');
      expect(turns).toHaveLength(1);
      expect(turns[0]).toMatchObject({ status: 'failed', errorKind: 'timeout' });
      expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
      expect(harness.anthropic.requests).toHaveLength(1);
    } finally {
      await harness.close();
    }
  });

  it('apologises after PLAN_TIMEOUT_MS when the whole turn runs out of time', async () => {
    const harness = await HeraldHarness.start({ env: { PLAN_TIMEOUT_MS: '400', ANTHROPIC_TIMEOUT_MS: '20000' } });
    try {
      harness.anthropic.enqueue({ hang: true });
      const started = performance.now();
      const { reply, inbound, turns } = await exchange(harness, '+14155550312', 'plan my week');
      const elapsed = performance.now() - started;

      expect(reply.body).toBe(tookTooLong);
      expect(elapsed).toBeGreaterThanOrEqual(400);
      // The plan's limit cut it, not the 20 s request timeout.
      expect(turns[0]?.errorMessage).toBe('TimeoutError: the plan took longer than 400 ms');
      expect(turns[0]).toMatchObject({ status: 'failed', errorKind: 'timeout' });
      expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
      // Stopping proves nothing else was going to be sent.
      await harness.settle();
      expect(harness.twilio.messages).toHaveLength(1);
    } finally {
      await harness.close();
    }
  });
});

describe('the SDK retrying on its own, then the fallback model', () => {
  it('the primary answering 529 three times (the SDK\'s own retries spent), then the fallback answering: the user gets the real answer', async () => {
    const harness = await HeraldHarness.start({ env: { ANTHROPIC_MAX_RETRIES: '2' } });
    try {
      const overloaded = { error: { status: 529, retryAfterSeconds: 0 } };
      harness.anthropic.enqueue(overloaded, overloaded, overloaded, { text: 'Sonnet 4.6 here: all good.' });
      // "remind me" points to an agent: the full planner (Sonnet 5.5) takes it.
      const { reply, turns } = await exchange(harness, '+14155550322', 'can you remind me of things?');

      expect(reply.body).toBe('Sonnet 4.6 here: all good.');
      expect(harness.anthropic.requests.map((request) => request.body.model)).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5', 'claude-sonnet-5-5', 'claude-sonnet-4-6']);
      expect(turns[0]).toMatchObject({ status: 'succeeded', errorKind: null });
      expect(turns[0]!.models).toEqual([expect.objectContaining({ model: 'claude-sonnet-4-6', calls: 1 })]);
      // The fallback got its own profile's settings: temperature 0 (Sonnet 4.6 takes it), effort medium.
      expect(harness.anthropic.requests[3]!.body).toMatchObject({ temperature: 0, output_config: { effort: 'medium' } });
      expect(harness.logs.lines.some((line) => line.msg === 'model unavailable; trying the next one' && line.next === 'claude-sonnet-4-6')).toBe(true);
    } finally {
      await harness.close();
    }
  });

  it('recovers from a 529 with ANTHROPIC_MAX_RETRIES=2 and sends the good answer only', async () => {
    const harness = await HeraldHarness.start({ env: { ANTHROPIC_MAX_RETRIES: '2' } });
    try {
      harness.anthropic.enqueue({ error: { status: 529 } }, { text: 'All good now.' });
      const { reply, turns } = await exchange(harness, '+14155550321', 'how are you?');
      expect(reply.body).toBe('All good now.');
      expect(harness.anthropic.requests).toHaveLength(2);
      expect(turns[0]).toMatchObject({ status: 'succeeded', errorKind: null });
      await harness.settle();
      expect(harness.twilio.messages).toHaveLength(1);
    } finally {
      await harness.close();
    }
  });
});

import { spawnSync } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOtelTracing } from '../../src/observability/otel-tracing.js';
import type { Tracing } from '../../src/observability/tracing.js';
import { loadConfig } from '../../src/config/config.js';
import { capturingLogger, HeraldHarness } from '../helpers/herald-harness.js';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT), exported over OTLP/HTTP to an
 * in-process receiver: one trace per turn, from the webhook to the Twilio send, with spans
 * for context assembly, planning, each step, each model call (GenAI conventions) and each
 * tool call; a turn answered by another instance continues the webhook's trace; nothing a
 * person wrote, no phone number and no secret in any attribute; and a collector that is
 * down, slow or failing costs the spans only, with one warning a minute at most.
 */

const phone = '+14155558101';
const distinctive = ['wombat', 'Thaddeus', 'Brimble'];

function otel(receiver: OtlpReceiver | string, logger = capturingLogger().logger, exportTimeoutMs = 2_000): Tracing {
  const url = typeof receiver === 'string' ? receiver : `${receiver.url}/v1/traces`;
  return createOtelTracing({ tracesUrl: url, headers: {}, serviceName: 'herald-test', exportDelayMs: 20, exportTimeoutMs }, logger);
}

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('traces of a turn', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let harness: HeraldHarness;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    tracing = otel(receiver);
    harness = await HeraldHarness.start({ tracing });
    // One turn, traced, that both tests read: neither leans on the other having run first.
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'A fact', goal: 'Save a fact', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Save: the wombat is Thaddeus Brimble' }] } }] },
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'personal', subject: 'pet', content: 'Has a wombat called Thaddeus Brimble' } },
          { name: 'complete_step', input: { summary: 'Saved 1 fact', reply: 'Noted: Thaddeus Brimble the wombat.', created: [{ description: 'Has a wombat called Thaddeus Brimble' }] } },
        ],
      },
    );
    expect(await harness.exchange(phone, 'remember my wombat is called Thaddeus Brimble')).toBe('Noted: Thaddeus Brimble the wombat.');
    await receiver.until(() => byName(receiver.spans, 'twilio.send').length > 0 && byName(receiver.spans, 'herald.turn').length > 0);
  });
  afterAll(async () => {
    await harness.close();
    await tracing.shutdown();
    await receiver.close();
  });

  it('is one trace from the webhook to the Twilio send, with context, plan, step, model and tool spans', async () => {
    const [webhook] = byName(receiver.spans, 'herald.webhook');
    expect(webhook).toMatchObject({ parentSpanId: undefined, kind: 2, serviceName: 'herald-test', attributes: { 'herald.channel': 'sms', 'herald.webhook.outcome': 'accepted' } });
    const spans = receiver.trace(webhook!.traceId);
    const one = (name: string) => {
      const found = byName(spans, name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const turn = one('herald.turn');
    expect(turn.parentSpanId).toBe(webhook!.spanId);
    expect(turn.attributes).toMatchObject({ 'herald.channel': 'sms', 'herald.turn.messages': 1, 'herald.turn.kind': 'message' });
    expect(one('herald.context').parentSpanId).toBe(turn.spanId);
    const plan = one('herald.plan');
    expect(plan.parentSpanId).toBe(turn.spanId);
    expect(plan.attributes).toMatchObject({ 'herald.plan.outcome': 'plan', 'herald.planner.model': 'claude-haiku-5-5', 'herald.plan.handed_off': false });
    const step = one('herald.step');
    expect(step.attributes).toMatchObject({ 'herald.step.id': 'step_1', 'gen_ai.agent.name': 'memory-agent', 'herald.step.success': true });

    const chats = spans.filter((span) => span.name.startsWith('chat '));
    expect(chats.map((chat) => [chat.name, chat.parentSpanId])).toEqual([
      // A memory request: the light planner (Haiku) plans it.
      ['chat claude-haiku-5-5', plan.spanId],
      ['chat claude-haiku-5-5', step.spanId],
    ]);
    for (const chat of chats) {
      expect(chat.kind).toBe(3); // client
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': expect.any(String),
        'gen_ai.response.model': expect.any(String),
        'gen_ai.usage.input_tokens': expect.any(Number),
        'gen_ai.usage.output_tokens': expect.any(Number),
        'gen_ai.usage.cache_read.input_tokens': expect.any(Number),
        'gen_ai.usage.cache_creation.input_tokens': expect.any(Number),
        'gen_ai.response.finish_reasons': ['tool_use'],
      });
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    }
    const tool = one('execute_tool remember_fact');
    expect(tool.parentSpanId).toBe(step.spanId);
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': 'remember_fact', 'gen_ai.agent.name': 'memory-agent', 'herald.tool.is_error': false, 'herald.tool.mutates': true });

    const send = one('twilio.send');
    expect(send.parentSpanId).toBe(turn.spanId);
    expect(send.attributes).toMatchObject({ 'herald.channel': 'sms', 'herald.outbound.kind': 'reply', 'herald.outbound.status': 'sent' });
    expect(send.startTimeUnixNano).toBeGreaterThanOrEqual(turn.startTimeUnixNano);

    // The message row keeps the webhook's trace context.
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const [message] = await harness.database.prisma.message.findMany({ where: { userId: user.id, role: 'user' } });
    expect(message!.traceContext).toBe(`00-${webhook!.traceId}-${webhook!.spanId}-01`);
  });

  it('carries no message text, phone number, user id or secret in any attribute', async () => {
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const values = JSON.stringify(receiver.spans.map((span) => [span.name, span.attributes]));
    for (const secret of [...distinctive, phone, phone.slice(2), user.id, harness.config.twilio.authToken!, harness.config.anthropic.apiKey!]) {
      expect(values.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });
});

describe('a turn answered by another instance', () => {
  let database: TestDatabase;
  let receiver: OtlpReceiver;
  const tracings: Tracing[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await OtlpReceiver.start();
  });
  afterAll(async () => {
    for (const tracing of tracings) await tracing.shutdown();
    await receiver.close();
    await database.drop();
  });

  it('continues the trace the webhook started on the instance that stored the message', async () => {
    // Instance A stores the message and dies before any worker of its runs the turn.
    const tracingA = otel(receiver);
    tracings.push(tracingA);
    const a = await HeraldHarness.start({ database, tracing: tracingA, start: false });
    expect((await a.inbound({ from: '+14155558102', body: 'hello there' })).statusCode).toBe(200);
    await a.close();
    await receiver.until(() => byName(receiver.spans, 'herald.webhook').length === 1);
    const [webhook] = byName(receiver.spans, 'herald.webhook');

    // Instance B (its own tracer provider) recovers the pending message at start-up.
    const tracingB = otel(receiver);
    tracings.push(tracingB);
    const b = await HeraldHarness.start({ database, tracing: tracingB, start: false });
    try {
      b.anthropic.enqueue({ text: 'Hello from instance B.' });
      await b.herald.start();
      await b.repliesTo('+14155558102', 1);
      await receiver.until(() => byName(receiver.spans, 'twilio.send').length === 1);
      const turn = byName(receiver.spans, 'herald.turn')[0]!;
      expect(turn.traceId).toBe(webhook!.traceId);
      expect(turn.parentSpanId).toBe(webhook!.spanId);
      expect(byName(receiver.spans, 'twilio.send')[0]!.traceId).toBe(webhook!.traceId);
    } finally {
      await b.close();
    }
  });
});

describe('a collector that is down, slow or failing', () => {
  let receiver: OtlpReceiver;
  let harness: HeraldHarness | undefined;
  let tracing: Tracing | undefined;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await harness?.close();
    await tracing?.shutdown();
    harness = undefined;
    tracing = undefined;
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** A collector host that resets every connection (its process is down behind a proxy); counts them. */
  async function resettingEndpoint(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
    let connections = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.resetAndDestroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    return { url: `http://127.0.0.1:${port}/v1/traces`, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  const cases: Array<{ name: string; mode: 'fail500' | 'hang' | 'reset' }> = [
    { name: 'answers 500', mode: 'fail500' },
    { name: 'never answers', mode: 'hang' },
    { name: 'is down (every connection reset)', mode: 'reset' },
  ];
  for (const [index, { name, mode }] of cases.entries()) {
    it(`leaves turns unaffected when the collector ${name}, drops the spans and warns once`, async () => {
      const reset = mode === 'reset' ? await resettingEndpoint() : undefined;
      receiver.mode = mode === 'reset' ? 'ok' : mode;
      const requestsBefore = receiver.requests;
      const attempts = () => (reset ? reset.connections() : receiver.requests - requestsBefore);
      const { logger, logs } = capturingLogger();
      tracing = otel(reset ? reset.url : receiver, logger, 200);
      harness = await HeraldHarness.start({ tracing });
      try {
        const from = `+1415555820${index}`;
        for (const text of ['first', 'second', 'third']) {
          harness.anthropic.enqueue({ text: `Answer to ${text}.` });
          expect(await harness.exchange(from, text)).toBe(`Answer to ${text}.`);
        }
        // Exports keep failing (each batch is tried and dropped): the warning is said once.
        const warnings = () => logs.lines.filter((line) => line.msg?.startsWith('could not export traces'));
        await waitFor(() => warnings().length >= 1 && attempts() >= 2, 15_000);
        expect(warnings()).toHaveLength(1);
        expect(warnings()[0]).toMatchObject({ level: 40, droppedSpans: expect.any(Number) });
        expect(receiver.spans).toHaveLength(0);
      } finally {
        await reset?.close();
      }
    });
  }
});

/** Polls a condition that has no event to await (a log line written by a background exporter). */
async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
  }
}

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('reads the standard variables only when set', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).observability.tracing).toBeUndefined();
    const withEndpoint = loadConfig({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%3D1,x-team=herald' });
    expect(withEndpoint.observability.tracing).toEqual({ tracesUrl: 'http://collector:4318/v1/traces', headers: { 'api-key': 'abc=1', 'x-team': 'herald' }, serviceName: 'herald' });
    const tracesOnly = loadConfig({ NODE_ENV: 'test', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example/v1/spans', OTEL_SERVICE_NAME: 'herald-eu' });
    expect(tracesOnly.observability.tracing).toEqual({ tracesUrl: 'https://otlp.example/v1/spans', headers: {}, serviceName: 'herald-eu' });
  });

  it('loads no OpenTelemetry SDK module and no tracing code of Herald', () => {
    // A fresh process: this test file itself imports the SDK.
    const script = fileURLToPath(new URL('./fixtures/loaded-modules.mjs', import.meta.url));
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    const { loaded, enabled } = JSON.parse(child.stdout) as { loaded: string[]; enabled: boolean };
    expect(enabled).toBe(false);
    // Only the API package, which the Anthropic SDK and prom-client import themselves (a no-op without a provider).
    expect(loaded).toEqual(['@opentelemetry/api']);
  });
});

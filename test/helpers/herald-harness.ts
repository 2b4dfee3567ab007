import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import twilio from 'twilio';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createLogger, type Logger } from '../../src/logging/logger.js';
import type { ModelClient } from '../../src/model/model-client.js';
import type { MessageTransport } from '../../src/outbox/message-transport.js';
import { createHerald, type Herald } from '../../src/runtime.js';
import type { Clock } from '../../src/shared/clock.js';
import type { HostResolver } from '../../src/net/outbound-policy.js';
import type { Tracing } from '../../src/observability/tracing.js';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer, type SentTwilioMessage } from '../fakes/fake-twilio-server.js';
import { eventually } from './eventually.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export const PUBLIC_BASE_URL = 'https://herald.test';
export const HERALD_SMS_NUMBER = '+15005550006';
export const HERALD_WHATSAPP_NUMBER = 'whatsapp:+14155238886';
/** A shutdown grace no test lasts (see HeraldHarness.settle). */
const SETTLE_GRACE_MS = 10 * 60_000;
/** The tests' HERALD_ENCRYPTION_KEY (32 bytes, base64). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 42).toString('base64');

/** Captured log lines, parsed. */
export interface CapturedLogs {
  lines: Array<Record<string, unknown> & { level: number; msg?: string }>;
  text(): string;
}

/** Options for a test Herald. */
export interface HarnessOptions {
  env?: Record<string, string | undefined>;
  clock?: Clock;
  model?: ModelClient;
  transport?: MessageTransport;
  database?: TestDatabase;
  /** Start the queue and workers (default true). */
  start?: boolean;
  /** Resolves the hosts of servers users connect (default the system's): maps public-looking names to test servers. */
  resolver?: HostResolver;
  logLevel?: string;
  /** Tracing to use (tests build it with short export intervals). */
  tracing?: Tracing;
}

/**
 * A real Herald (real Postgres, real Fastify, real SDKs) against the fake Twilio and
 * Anthropic servers: the network edge is the only thing faked.
 */
export class HeraldHarness {
  private constructor(
    readonly herald: Herald,
    readonly config: Config,
    readonly database: TestDatabase,
    readonly twilio: FakeTwilioServer,
    readonly anthropic: FakeAnthropicServer,
    readonly logs: CapturedLogs,
    private readonly ownsDatabase: boolean,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<HeraldHarness> {
    const [database, fakeTwilio, fakeAnthropic] = await Promise.all([
      options.database ? Promise.resolve(options.database) : createTestDatabase(),
      FakeTwilioServer.start(),
      FakeAnthropicServer.start(),
    ]);
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: options.logLevel ?? 'debug',
      PUBLIC_BASE_URL,
      TWILIO_ACCOUNT_SID: fakeTwilio.accountSid,
      TWILIO_AUTH_TOKEN: fakeTwilio.authToken,
      TWILIO_SMS_FROM: HERALD_SMS_NUMBER,
      TWILIO_WHATSAPP_FROM: HERALD_WHATSAPP_NUMBER,
      TWILIO_API_BASE_URL: fakeTwilio.url,
      ANTHROPIC_API_KEY: 'test-anthropic-key',
      ANTHROPIC_BASE_URL: fakeAnthropic.url,
      ANTHROPIC_MAX_RETRIES: '0',
      // Longer than any test: a model call the fake leaves unanswered is the test's to script
      // ({ hang: true } with a timeout of its own), never one a loaded machine reaches by chance.
      ANTHROPIC_TIMEOUT_MS: '60000',
      OUTBOX_RETRY_BASE_MS: '5',
      OUTBOX_RETRY_MAX_MS: '50',
      DEFAULT_TIMEZONE: 'America/New_York',
      HERALD_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      // Background learning makes model calls of its own: only the tests about it turn it on.
      FACT_LEARNING: 'off',
      // Quiet hours hold progress messages and notices by the clock: only the tests about them turn them on.
      QUIET_HOURS: 'off',
      // Each Herald its own inbound spool (made only if something is spooled): never another test's files.
      INBOUND_SPOOL_DIR: path.join(tmpdir(), `herald-spool-${randomUUID()}`),
      ...options.env,
    });
    const logs = captureLogs();
    const logger = createLogger({ level: config.logLevel, destination: logs.stream });
    const herald = await createHerald({
      config,
      logger,
      database,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.resolver ? { resolver: options.resolver } : {}),
      ...(options.tracing ? { tracing: options.tracing } : {}),
      recoveryIntervalMs: 0,
      pollingIntervalSeconds: 0.5,
    }).catch(async (error: unknown) => {
      // A configuration Herald refuses (a test of start-up checks): nothing is left running.
      await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
      if (!options.database) await database.drop();
      throw error;
    });
    if (options.start !== false) await herald.start();
    return new HeraldHarness(herald, config, database, fakeTwilio, fakeAnthropic, logs.captured, !options.database);
  }

  /** Posts a signed inbound webhook, as Twilio would. */
  async inbound(params: InboundParams, headers: Record<string, string> = {}) {
    const form = inboundForm(params, this.twilio.accountSid);
    return this.post('/twilio/messages', form, headers);
  }

  /** Posts a signed form to a webhook path. */
  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    const signature = twilio.getExpectedTwilioSignature(this.twilio.authToken, `${PUBLIC_BASE_URL}${path}`, form);
    return this.herald.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature, ...headers },
      payload: new URLSearchParams(form).toString(),
    });
  }

  /** Waits until Twilio has accepted `count` messages in total (for as long as the test lets it); returns them. */
  replies(count: number) {
    return this.twilio.waitForMessages(count);
  }

  /** Texts Herald from `from` and returns the next message Herald sends that number. */
  async exchange(from: string, body: string, sid?: string): Promise<string> {
    const before = this.twilio.messages.filter((message) => message.to === from).length;
    const response = await this.inbound({ from, body, ...(sid ? { sid } : {}) });
    if (response.statusCode !== 200) throw new Error(`the webhook answered ${response.statusCode}`);
    const replies = await this.repliesTo(from, before + 1);
    return replies[before]!.body ?? '';
  }

  /** Waits (on Twilio accepting messages, no polling, for as long as the test lets it) until `count` messages went to `to`; returns them. */
  async repliesTo(to: string, count: number): Promise<SentTwilioMessage[]> {
    for (;;) {
      const matching = this.twilio.messages.filter((message) => message.to === to);
      if (matching.length >= count) return matching;
      await this.twilio.waitForMessages(this.twilio.messages.length + 1);
    }
  }

  /**
   * Stops Herald once the work in flight is done: after it, nothing more will be sent. The
   * grace is longer than any test, so a stop() that waited it out instead of returning when
   * the work was done would time the test out rather than pass on a fast machine only.
   */
  async settle(): Promise<void> {
    await this.herald.stop(SETTLE_GRACE_MS);
  }

  /**
   * Waits until everything `phone` sent has been answered (no message of theirs pending)
   * and nothing to them is left to send: after it, Herald sends them nothing more unless
   * they write again. For tests that go on with the same Herald (settle() stops it).
   */
  async idle(phone: string): Promise<void> {
    const { prisma } = this.database;
    await eventually(async () => {
      const user = await prisma.user.findUnique({ where: { phone }, select: { id: true } });
      if (!user) return undefined;
      const pending = await prisma.message.count({ where: { userId: user.id, role: 'user', inboundStatus: 'pending' } });
      if (pending > 0 || (await this.herald.outbox.hasUndelivered(user.id))) return undefined;
      return true;
    }, `${phone}'s messages all answered and sent`);
  }

  /** Stops Herald, closes the fakes and drops the database. */
  async close(): Promise<void> {
    await this.herald.stop(0).catch(() => {});
    await Promise.all([this.twilio.close(), this.anthropic.close()]);
    if (this.ownsDatabase) await this.database.drop();
    await rm(this.config.inboundSpool.directory, { recursive: true, force: true });
  }
}

/** The fields a test sets on an inbound message. */
export interface InboundParams {
  from: string;
  body?: string;
  sid?: string;
  to?: string;
  numMedia?: number;
  extra?: Record<string, string>;
}

let sidCounter = 0;

/** A unique, valid-looking MessageSid. */
export function messageSid(): string {
  sidCounter += 1;
  return `SM${process.pid.toString(16).padStart(8, '0')}${Date.now().toString(16).padStart(12, '0')}${sidCounter.toString(16).padStart(12, '0')}`;
}

/** The form Twilio posts for an inbound message. */
export function inboundForm(params: InboundParams, accountSid: string): Record<string, string> {
  const whatsapp = params.from.startsWith('whatsapp:');
  return {
    ToCountry: 'US',
    SmsMessageSid: params.sid ?? messageSid(),
    NumMedia: String(params.numMedia ?? 0),
    MessageSid: params.sid ?? messageSid(),
    AccountSid: accountSid,
    From: params.from,
    To: params.to ?? (whatsapp ? HERALD_WHATSAPP_NUMBER : HERALD_SMS_NUMBER),
    Body: params.body ?? '',
    NumSegments: '1',
    ApiVersion: '2010-04-01',
    ...params.extra,
  };
}

function captureLogs(): { stream: Writable; captured: CapturedLogs } {
  const lines: CapturedLogs['lines'] = [];
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = chunk.toString();
      raw += text;
      for (const line of text.split('\n')) {
        if (line.trim()) lines.push(JSON.parse(line));
      }
      callback();
    },
  });
  return { stream, captured: { lines, text: () => raw } };
}

/** A logger whose output tests can read. */
export function capturingLogger(level = 'debug'): { logger: Logger; logs: CapturedLogs } {
  const { stream, captured } = captureLogs();
  return { logger: createLogger({ level, destination: stream }), logs: captured };
}

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../fakes/fake-anthropic-server.js';
import { FakeTwilioServer } from '../fakes/fake-twilio-server.js';
import { crashTestEnvironment, postInbound } from '../helpers/crash-takeover.js';
import { startHeraldProcess, type HeraldProcess } from '../helpers/herald-process.js';
import { StoppablePostgres } from '../helpers/stoppable-postgres.js';
import { parseScrape, sampleValue } from '../observability/scrape.js';

const PUBLIC_BASE_URL = 'https://herald.example.test';
const METRICS_TOKEN = 'spool-outage-metrics-token';

/**
 * Real Herald processes against a Postgres of this file's own, which the tests stop and start
 * (never the shared test server): what Twilio sends while the database is away is answered 200,
 * kept on disk, and answered once when it is back, even by the next process after a SIGKILL.
 */
describe('the inbound spool through a database outage', () => {
  let postgres: StoppablePostgres;
  let fakeTwilio: FakeTwilioServer;
  let fakeAnthropic: FakeAnthropicServer;
  const running: HeraldProcess[] = [];
  const directories: string[] = [];
  let databases = 0;

  beforeAll(async () => {
    [postgres, fakeTwilio, fakeAnthropic] = await Promise.all([StoppablePostgres.start(), FakeTwilioServer.start(), FakeAnthropicServer.start()]);
  }, 120_000);
  afterEach(async () => {
    for (const instance of running.splice(0)) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.crash();
    await postgres.restart();
    fakeTwilio.reset();
    fakeAnthropic.reset();
  });
  afterAll(async () => {
    await Promise.all([fakeTwilio.close(), fakeAnthropic.close()]);
    await postgres.destroy();
    for (const directory of directories) await rm(directory, { recursive: true, force: true });
  });

  /** A database and a spool directory for one test, and the environment of a Herald using them. */
  async function setUp(extra: Record<string, string> = {}): Promise<{ env: Record<string, string>; databaseUrl: string; spool: string }> {
    databases += 1;
    const databaseUrl = await postgres.createDatabase(`spool_outage_${databases}`);
    const spool = await mkdtemp(path.join(tmpdir(), 'herald-spool-test-'));
    directories.push(spool);
    fakeAnthropic.setFallback({ text: 'Got it.' });
    const env = await crashTestEnvironment({
      databaseUrl,
      fakeTwilio,
      fakeAnthropic,
      publicBaseUrl: PUBLIC_BASE_URL,
      extra: { INBOUND_SPOOL_DIR: spool, METRICS_TOKEN, NEW_USERS_PER_HOUR: '1000', ...extra },
    });
    return { env, databaseUrl, spool };
  }

  async function start(env: Record<string, string>, until?: RegExp): Promise<HeraldProcess> {
    const instance = await startHeraldProcess(env, until ? { until } : {});
    running.push(instance);
    return instance;
  }

  const senders = (count: number, first: number) => Array.from({ length: count }, (_, index) => `+1415555${String(first + index).padStart(4, '0')}`);
  const post = (instance: HeraldProcess, from: string, body: string) => postInbound(instance, PUBLIC_BASE_URL, fakeTwilio, { from, body });
  const spooledFiles = async (directory: string) => (await readdir(directory, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);

  async function scrape(instance: HeraldProcess) {
    const response = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    return parseScrape(await response.text());
  }

  /** Each sender's messages, stored once and handled, with one reply each; nothing else to them. */
  async function expectAnsweredOnce(databaseUrl: string, phones: string[]): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      for (const phone of phones) {
        const { rows } = await client.query<{ role: string; inboundStatus: string | null }>(
          `SELECT m."role", m."inboundStatus" FROM "Message" m JOIN "User" u ON u."id" = m."userId" WHERE u."phone" = $1 ORDER BY m."createdAt"`,
          [phone],
        );
        expect(rows, phone).toEqual([
          { role: 'user', inboundStatus: 'handled' },
          { role: 'assistant', inboundStatus: null },
        ]);
        expect(fakeTwilio.messages.filter((message) => message.to === phone), phone).toHaveLength(1);
      }
    } finally {
      await client.end();
    }
  }

  it('answers 200 to every webhook while the database is down, until the spool is full (500, counted, logged); each spooled message is answered exactly once when it is back', async () => {
    const phones = senders(8, 100);
    const { env, databaseUrl, spool } = await setUp({ INBOUND_SPOOL_MAX_FILES: String(phones.length) });
    const herald = await start(env);
    const refused = '+14155550399';

    await postgres.stop();
    const statuses = await Promise.all(phones.map((phone, index) => post(herald, phone, `message ${index} during the outage`)));
    expect(statuses).toEqual(phones.map(() => 200));
    expect(await spooledFiles(spool)).toHaveLength(phones.length);
    // One more than the spool holds: refused as it was before the spool, and said loudly.
    expect(await post(herald, refused, 'one too many')).toBe(500);
    const full = await herald.waitForOutput(/INBOUND SPOOL FULL/);
    expect(JSON.parse(full)).toMatchObject({ level: 50, maxFiles: phones.length, messages: phones.length });
    expect(fakeTwilio.messages).toHaveLength(0);
    // Scraped while the database is still away: that is when the spool's gauges matter.
    const during = await scrape(herald);
    expect(sampleValue(during, 'herald_inbound_spool_messages')).toBe(phones.length);
    expect(sampleValue(during, 'herald_inbound_spool_bytes')).toBeGreaterThan(0);

    await postgres.restart();
    await fakeTwilio.waitForMessages(phones.length);
    const samples = await scrape(herald);
    // A clean stop finishes what is in flight: only then is "exactly once" final.
    expect(await herald.terminate()).toBe(0);
    await expectAnsweredOnce(databaseUrl, phones);
    expect(fakeTwilio.messages).toHaveLength(phones.length);
    expect(await spooledFiles(spool)).toEqual([]);
    const events = (event: string) => sampleValue(samples, 'herald_inbound_spool_events_total', { event });
    expect([events('spooled'), events('replayed'), events('refused_full')]).toEqual([phones.length, phones.length, 1]);
    expect(sampleValue(samples, 'herald_inbound_spool_messages')).toBe(0);
    // The refused one was never stored: Twilio was told 500.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query(`SELECT 1 FROM "User" WHERE "phone" = $1`, [refused]);
    await client.end();
    expect(rows).toEqual([]);
  }, 180_000);

  it('replays at the next start what a process SIGKILLed during the outage had spooled', async () => {
    const { env, databaseUrl, spool } = await setUp();
    const first = await start(env);
    const phones = senders(3, 200);

    await postgres.stop();
    for (const [index, phone] of phones.entries()) expect(await post(first, phone, `kept on disk ${index}`)).toBe(200);
    await first.crash();
    expect(await spooledFiles(spool)).toHaveLength(phones.length);

    await postgres.restart();
    const second = await start(env);
    await fakeTwilio.waitForMessages(phones.length);
    expect(second.output.some((line) => line.includes('spooled by an earlier process'))).toBe(true);
    expect(await second.terminate()).toBe(0);
    await expectAnsweredOnce(databaseUrl, phones);
    expect(fakeTwilio.messages).toHaveLength(phones.length);
    expect(await spooledFiles(spool)).toEqual([]);
  }, 180_000);

  it('two instances both live through the outage (no dependency\'s error ends a process) and answer everything once after it', async () => {
    const { env, databaseUrl } = await setUp();
    const [first, second] = [await start(env), await start({ ...env, PORT: String(Number(env.PORT) + 1) })];
    const phones = senders(6, 300);
    await fakeAnthropic.reset();
    fakeAnthropic.setFallback({ text: 'Got it.' });
    // Work in flight and queued when the database goes: pg-boss's unawaited completions reject then.
    await post(first, phones[0]!, 'just before');
    await postgres.stop();
    for (const [index, phone] of phones.slice(1).entries()) expect(await post(index % 2 === 0 ? first : second, phone, `during ${index}`)).toBe(200);
    expect((await fetch(`${second.baseUrl}/readyz`)).status).toBe(503);
    await postgres.restart();
    await fakeTwilio.waitForMessages(phones.length);
    for (const instance of [first, second]) expect(instance.child.exitCode, instance.output.slice(-20).join('\n')).toBeNull();
    expect((await fetch(`${first.baseUrl}/readyz`)).status).toBe(200);
    expect(await first.terminate()).toBe(0);
    expect(await second.terminate()).toBe(0);
    await expectAnsweredOnce(databaseUrl, phones);
  }, 180_000);

  it('starts while the database is down: listens, keeps webhooks, is not ready; comes up with it and answers them', async () => {
    const { env, databaseUrl, spool } = await setUp();
    await postgres.stop();
    const herald = await start(env, /waiting for the database: listening meanwhile/);
    expect((await fetch(`${herald.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${herald.baseUrl}/readyz`)).status).toBe(503);
    const phones = senders(3, 400);
    for (const [index, phone] of phones.entries()) expect(await post(herald, phone, `before the database ${index}`)).toBe(200);
    expect(await spooledFiles(spool)).toHaveLength(phones.length);

    await postgres.restart();
    await herald.waitForOutput(/Herald is listening/);
    await fakeTwilio.waitForMessages(phones.length);
    expect((await fetch(`${herald.baseUrl}/readyz`)).status).toBe(200);
    expect(await herald.terminate()).toBe(0);
    await expectAnsweredOnce(databaseUrl, phones);
    expect(await spooledFiles(spool)).toEqual([]);
  }, 180_000);
});

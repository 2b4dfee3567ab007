import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inboundMessageSchema } from '../../src/channels/twilio-webhook-schemas.js';
import { InboundService } from '../../src/conversation/inbound-service.js';
import { InboundSpool } from '../../src/conversation/inbound-spool.js';
import type { SpooledDelivery } from '../../src/conversation/spool-files.js';
import { createSilentLogger } from '../../src/logging/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { HeraldHarness, inboundForm, messageSid } from '../helpers/herald-harness.js';
import { parseScrape, sampleValue } from '../observability/scrape.js';

// Eight turn workers poll every half second: a message another instance stored is found at once.
const ENV = { METRICS_TOKEN: 'inbound-spool-metrics-token', NEW_USERS_PER_HOUR: '1000', TURN_CONCURRENCY: '8' };
let phoneCounter = 0;
/** A number no other test in this file writes from. */
const newPhone = () => `+1415556${String((phoneCounter += 1)).padStart(4, '0')}`;

/**
 * The spool's replay against the real database (the shared test server stays up: outages are
 * test/e2e/inbound-spool-outage.test.ts): MessageSid de-duplication keeps every race to one
 * stored message and one reply, unreadable files are moved aside, and a file holds no more
 * than the normal path needs.
 */
describe('replaying the inbound spool', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: ENV, logLevel: 'info' });
  });
  afterAll(async () => {
    await harness.close();
  });
  beforeEach(() => {
    harness.twilio.reset();
    harness.anthropic.reset();
    harness.anthropic.setFallback({ text: 'Got it.' });
  });

  const spool = () => harness.herald.spool;
  const delivery = (from: string, body: string, sid = messageSid(), receivedAt = systemClock.now()): SpooledDelivery => ({
    webhook: inboundMessageSchema.parse(inboundForm({ from, body, sid }, harness.twilio.accountSid)),
    receivedAt,
  });
  const spooledNames = async () => (await readdir(spool().files.directory, { withFileTypes: true }).catch(() => [])).filter((entry) => entry.isFile()).map((entry) => entry.name);

  /** Every phone: one stored message, handled, and one reply, once its turn is done. */
  async function expectAnsweredOnce(phones: string[]): Promise<void> {
    for (const phone of phones) await harness.idle(phone);
    for (const phone of phones) {
      const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
      const messages = await harness.database.prisma.message.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } });
      expect(messages.map((message) => [message.role, message.inboundStatus]), phone).toEqual([
        ['user', 'handled'],
        ['assistant', null],
      ]);
      expect(harness.twilio.messages.filter((message) => message.to === phone), phone).toHaveLength(1);
    }
  }

  it('a replay racing Twilio delivering the same messages again stores and answers each once', async () => {
    const phones = Array.from({ length: 6 }, newPhone);
    const deliveries = phones.map((phone) => delivery(phone, 'are you there?'));
    for (const spooled of deliveries) await spool().files.write(spooled);

    // The replay and the retried webhooks all at once: each MessageSid is claimed by whichever comes first.
    const [report, ...statuses] = await Promise.all([
      spool().replayNow(),
      ...deliveries.map((spooled) => harness.inbound({ from: spooled.webhook.From, body: spooled.webhook.Body, sid: spooled.webhook.MessageSid }).then((response) => response.statusCode)),
    ]);
    expect(statuses).toEqual(phones.map(() => 200));
    expect(report).toMatchObject({ replayed: phones.length, quarantined: 0, left: 0, unreachable: false });
    expect(await spooledNames()).toEqual([]);
    await expectAnsweredOnce(phones);
  });

  it('the same message spooled by two instances is stored and answered once', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'herald-spool-other-'));
    try {
      // Another instance on the same database: its own spool directory, its own webhook path.
      const otherSpool = new InboundSpool({ directory: other, maxFiles: 100, maxBytes: 1_000_000, spoolAfterMs: 0, clock: systemClock, logger: createSilentLogger() });
      otherSpool.guard(new InboundService(harness.database.pool, systemClock, harness.config.defaultTimezone));
      const phones = Array.from({ length: 6 }, newPhone);
      const deliveries = phones.map((phone) => delivery(phone, 'hello from two places'));
      for (const spooled of deliveries) {
        await spool().files.write(spooled);
        await otherSpool.files.write(spooled);
      }
      const reports = await Promise.all([spool().replayNow(), otherSpool.replayNow()]);
      expect(reports.map((report) => report.replayed)).toEqual([phones.length, phones.length]);
      expect(await spooledNames()).toEqual([]);
      expect(await readdir(other)).toEqual([]);
      await expectAnsweredOnce(phones);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('stores nothing twice when the message was stored meanwhile', async () => {
    const phone = newPhone();
    const sid = messageSid();
    expect((await harness.inbound({ from: phone, body: 'first copy', sid })).statusCode).toBe(200);
    await harness.idle(phone);
    await spool().files.write(delivery(phone, 'first copy', sid));

    expect(await spool().replayNow()).toMatchObject({ replayed: 1, quarantined: 0, left: 0 });
    expect(await spooledNames()).toEqual([]);
    await expectAnsweredOnce([phone]);
    const line = harness.logs.lines.find((entry) => entry.msg === 'spooled inbound message replayed' && entry.messageSid === sid);
    expect(line).toMatchObject({ outcome: 'duplicate' });
  });

  it('moves an unreadable file to quarantine, says so, and replays the files after it', async () => {
    const phone = newPhone();
    const directory = spool().files.directory;
    const good = delivery(phone, 'after the broken ones');
    const written = await spool().files.write(good);
    if (written.kind !== 'written') throw new Error('not written');
    const goodText = await readFile(path.join(directory, written.name), 'utf8');
    // Older than the good one (names sort by receive time), so they come first.
    const broken: Record<string, string> = {
      '000000000000001-SMbroken00001-00000001.json': 'not json at all {',
      '000000000000002-SMbroken00002-00000002.json': goodText.slice(0, goodText.length / 2),
      '000000000000003-SMbroken00003-00000003.json': goodText.replace(good.webhook.MessageSid, 'not-a-sid'),
    };
    for (const [name, text] of Object.entries(broken)) await writeFile(path.join(directory, name), text);
    // Tests run shuffled: only this test's log lines count.
    const logsBefore = harness.logs.lines.length;
    const before = parseScrape((await harness.herald.metrics.scrape()).body);

    expect(await spool().replayNow()).toMatchObject({ replayed: 1, quarantined: 3, left: 0 });
    await expectAnsweredOnce([phone]);
    expect(await spooledNames()).toEqual([]);
    // Moved, never lost: each as it was.
    for (const [name, text] of Object.entries(broken)) expect(await readFile(path.join(directory, 'quarantine', name), 'utf8')).toBe(text);
    const logged = harness.logs.lines.slice(logsBefore).filter((entry) => entry.msg?.includes('moved to quarantine'));
    expect(logged.map((entry) => [entry.level, path.basename(String(entry.file))])).toEqual(Object.keys(broken).map((name) => [50, name]));
    expect(logged.map((entry) => entry.reason)).toEqual(['not JSON', 'not JSON', 'not a webhook (MessageSid)']);
    const after = parseScrape((await harness.herald.metrics.scrape()).body);
    const count = (samples: ReturnType<typeof parseScrape>, event: string) => sampleValue(samples, 'herald_inbound_spool_events_total', { event });
    expect(count(after, 'quarantined') - count(before, 'quarantined')).toBe(3);
    expect(count(after, 'replayed') - count(before, 'replayed')).toBe(1);
    await rm(path.join(directory, 'quarantine'), { recursive: true });
  });

  it('moves aside a file the database keeps refusing, without holding up the rest', async () => {
    const phone = newPhone();
    const other = newPhone();
    await refuseBodies(harness, 'cannot be stored');
    try {
      await spool().files.write(delivery(phone, 'cannot be stored', messageSid(), new Date(Date.now() - 1_000)));
      await spool().files.write(delivery(other, 'can be stored'));
      expect(await spool().replayNow()).toMatchObject({ replayed: 1, quarantined: 0, left: 1 });
      await expectAnsweredOnce([other]);
      expect(await spool().replayNow()).toMatchObject({ replayed: 0, quarantined: 0, left: 1 });
      expect(await spool().replayNow()).toMatchObject({ replayed: 0, quarantined: 1, left: 0 });
      const quarantined = await readdir(path.join(spool().files.directory, 'quarantine'));
      expect(quarantined).toHaveLength(1);
      expect(await harness.database.prisma.user.findUnique({ where: { phone } })).toBeNull();
    } finally {
      await refuseBodies(harness, undefined);
      await rm(path.join(spool().files.directory, 'quarantine'), { recursive: true, force: true });
    }
  });

  it('keeps only what the normal path needs, readable by Herald alone, and stores the message as received then', async () => {
    const phone = newPhone();
    const receivedAt = new Date(Date.now() - 60 * 60 * 1000);
    const form = inboundForm(
      { from: phone, body: 'a photo from an hour ago', numMedia: 1, extra: { MediaUrl0: 'https://api.twilio.com/2010-04-01/Accounts/AC/Messages/MM/Media/ME1', MediaContentType0: 'image/jpeg', FromCity: 'SAN FRANCISCO', FromZip: '94105' } },
      harness.twilio.accountSid,
    );
    const written = await spool().files.write({ webhook: inboundMessageSchema.parse(form), idempotencyToken: 'token-1', receivedAt });
    if (written.kind !== 'written') throw new Error('not written');
    const file = path.join(spool().files.directory, written.name);
    const record = JSON.parse(await readFile(file, 'utf8')) as { webhook: Record<string, unknown> };
    expect(Object.keys(record).sort()).toEqual(['format', 'idempotencyToken', 'receivedAt', 'webhook']);
    expect(Object.keys(record.webhook).sort()).toEqual(['AccountSid', 'Body', 'From', 'MediaContentType0', 'MediaUrl0', 'MessageSid', 'NumMedia', 'To']);
    expect(written.name.startsWith(`${String(receivedAt.getTime()).padStart(15, '0')}-${form.MessageSid}-`)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(spool().files.directory)).mode & 0o777).toBe(0o700);

    harness.anthropic.setFallback({ text: 'Nice photo.' });
    expect(await spool().replayNow()).toMatchObject({ replayed: 1 });
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    const message = await harness.database.prisma.message.findFirstOrThrow({ where: { userId: user.id, role: 'user' }, include: { media: true } });
    expect(message.createdAt.toISOString()).toBe(receivedAt.toISOString());
    expect(message.media.map((media) => media.url)).toEqual([form.MediaUrl0]);
    const keys = await harness.database.pool.query<{ key: string }>(`SELECT "key" FROM "InboundDedupe" WHERE "messageId" = $1::uuid ORDER BY "key"`, [message.id]);
    expect(keys.rows.map((row) => row.key)).toEqual([`sid:${form.MessageSid}`, 'token:token-1']);
  });

  it('answers 500 and spools nothing when the database answers with an error rather than being away', async () => {
    const phone = newPhone();
    await refuseBodies(harness, 'refused by a trigger');
    try {
      const response = await harness.inbound({ from: phone, body: 'refused by a trigger' });
      expect(response.statusCode).toBe(500);
      expect(await spooledNames()).toEqual([]);
    } finally {
      await refuseBodies(harness, undefined);
    }
  });
});

describe('a database that does not answer', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { ...ENV, INBOUND_SPOOL_AFTER_MS: '200' }, logLevel: 'info' });
    harness.anthropic.setFallback({ text: 'Got it.' });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('is waited for INBOUND_SPOOL_AFTER_MS, then the webhook is spooled and answered; the late statement and the replay store it once', async () => {
    const phone = newPhone();
    const sid = messageSid();
    // A transaction holding the de-duplication table: the webhook's statement waits behind it.
    const holder = new pg.Client({ connectionString: harness.database.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE "InboundDedupe" IN ACCESS EXCLUSIVE MODE');
      const response = await harness.inbound({ from: phone, body: 'still there?', sid });
      expect(response.statusCode).toBe(200);
      expect((await readdir(harness.herald.spool.files.directory)).filter((name) => name.includes(sid))).toHaveLength(1);
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    await harness.herald.spool.replayNow();
    await harness.idle(phone);
    expect((await readdir(harness.herald.spool.files.directory)).filter((name) => name.endsWith('.json'))).toEqual([]);
    const user = await harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });
    expect(await harness.database.prisma.message.count({ where: { userId: user.id, role: 'user' } })).toBe(1);
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toHaveLength(1);
    expect(harness.logs.lines.some((entry) => entry.messageSid === sid && String(entry.cause).includes('no answer from the database within 200 ms'))).toBe(true);
  });
});

/** Makes the database refuse (raise, SQLSTATE P0001) any inbound message with this body; undefined: stop. */
async function refuseBodies(harness: HeraldHarness, body: string | undefined): Promise<void> {
  const { pool } = harness.database;
  if (body === undefined) {
    await pool.query('DROP TRIGGER IF EXISTS spool_test_refuse ON "Message"');
    return;
  }
  await pool.query(`CREATE OR REPLACE FUNCTION spool_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW."content" = ${pg.escapeLiteral(body)} THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
  await pool.query('CREATE TRIGGER spool_test_refuse BEFORE INSERT ON "Message" FOR EACH ROW EXECUTE FUNCTION spool_test_refuse()');
}

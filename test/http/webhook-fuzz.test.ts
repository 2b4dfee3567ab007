import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { parse as parseForm } from 'fast-querystring';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reminderQueueDefinition } from '../../src/reminders/reminder-queue.js';
import { turnQueueDefinition } from '../../src/queue/turn-queue.js';
import { HeraldHarness, PUBLIC_BASE_URL } from '../helpers/herald-harness.js';

/**
 * How many generated webhooks: a few hundred in `npm test`, 10,000 in `npm run fuzz`
 * (FUZZ_RUNS=10000); FUZZ_RUNS overrides either (e.g. for a longer local soak).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/**
 * The generator's seed: random unless FUZZ_SEED is set. It is printed before the run, and a
 * failure prints the seed and counterexample path, so `FUZZ_SEED=<seed> npm run fuzz`
 * replays exactly the same requests.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

/**
 * Property-based fuzzing of `POST /twilio/messages` through app.inject, against a real
 * database (issue 11, item 5). Each run is one generated request: odd, missing and repeated
 * fields, huge and non-UTF-8 values (percent-escapes that decode to nothing, raw invalid
 * bytes), unusual senders (short codes, alphanumeric sender ids, `whatsapp:` with junk),
 * mostly signed for exactly what is sent and sometimes not. For every one: no 5xx, no crash,
 * nothing stored unless accepted, and an accepted message stored exactly once with its text.
 * The turn queue exists but no worker runs, so no model is involved.
 */
describe('webhook fuzz', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    // Thousands of new numbers: open mode's new-user limit (src/access) would refuse most.
    harness = await HeraldHarness.start({ start: false, logLevel: 'silent', env: { NEW_USERS_PER_HOUR: '1000000' } });
    // The webhook enqueues each accepted message's turn job in the same statement: the
    // queue must exist, as in production, but nothing works it.
    await harness.herald.queue.start([turnQueueDefinition(harness.config.limits.planTimeoutMs), reminderQueueDefinition]);
  });
  afterAll(async () => {
    await harness.close();
  });

  it(`answers ${RUNS} generated webhooks with no 5xx, storing exactly the accepted ones, once each`, async () => {
    const { pool } = harness.database;
    const accountSid = harness.twilio.accountSid;
    const accepted = new Map<string, string>();
    const statuses = new Map<number, number>();
    let sidCounter = 0;
    const nextSid = () => `SM${(sidCounter++).toString(16).padStart(32, '0')}`;

    const junk = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constant(''),
      fc.integer().map(String),
    );
    const sender = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 2_000_000, max: 9_999_999 }).map((digits) => `+1415${digits}`) },
      { weight: 4, arbitrary: fc.integer({ min: 2_000_000, max: 9_999_999 }).map((digits) => `whatsapp:+1415${digits}`) },
      fc.constantFrom('+447911123456', 'whatsapp:+972541234567', '+33612345678', ' +1 (415) 555-0100 ', 'tel:+14155550100'),
      fc.stringMatching(/^[0-9]{3,6}$/), // short codes
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{1,10}$/), // alphanumeric sender ids
      junk.map((value) => `whatsapp:${value}`),
      fc.constantFrom('whatsapp:', 'whatsapp:+', 'messenger:1234567890', '+', '+0', '+999999999999999999', 'x'.repeat(65)),
      junk,
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 200 }) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
      { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((text) => `${text}\u0000${text}`) },
      { weight: 1, arbitrary: fc.integer({ min: 9_990, max: 10_010 }).map((length) => 'a'.repeat(length)) },
      { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 70_000 }).map((length) => 'b'.repeat(length)) },
      { weight: 1, arbitrary: fc.constantFrom('', '   ', 'STOP', 'help', '\uD800', '\uFEFF', '\r\n') },
    );
    const field = <Value>(arbitrary: fc.Arbitrary<Value>) => fc.option(arbitrary, { freq: 20, nil: undefined });
    const webhook = fc.record({
      MessageSid: field(fc.oneof({ weight: 8, arbitrary: fc.constant('fresh') }, { weight: 1, arbitrary: fc.constant('repeat') }, { weight: 1, arbitrary: junk })),
      AccountSid: field(fc.oneof({ weight: 8, arbitrary: fc.constant(accountSid) }, { weight: 1, arbitrary: junk })),
      From: field(sender),
      To: field(fc.oneof({ weight: 6, arbitrary: fc.constantFrom('+15005550006', 'whatsapp:+14155238886') }, { weight: 2, arbitrary: sender })),
      Body: field(body),
      NumMedia: field(fc.oneof({ weight: 6, arbitrary: fc.constantFrom('0', '1', '3') }, { weight: 1, arbitrary: fc.constantFrom('-1', '21', '1e3', 'NaN', '') }, { weight: 1, arbitrary: junk })),
      OptOutType: fc.option(fc.oneof(fc.constantFrom('STOP', 'START', 'HELP'), junk), { freq: 1, nil: undefined }),
      ProfileName: fc.option(junk, { freq: 1, nil: undefined }),
      extra: fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), junk, { maxKeys: 4 }),
      /** Percent-escapes that are not UTF-8, raw invalid bytes, or a repeated field. */
      encoding: fc.constantFrom('plain', 'plain', 'plain', 'bad-escapes', 'raw-bytes', 'repeated'),
      signature: fc.constantFrom('valid', 'valid', 'valid', 'valid', 'valid', 'valid', 'valid', 'wrong', 'missing'),
    });

    process.stdout.write(`webhook fuzz: ${RUNS} runs, seed ${SEED} (replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npm run fuzz)\n`);
    const started = performance.now();
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(webhook, async (generated) => {
        runs += 1;
        const fields: Array<[string, string]> = [];
        const sid = generated.MessageSid === 'fresh' ? nextSid() : generated.MessageSid === 'repeat' ? [...accepted.keys()].at(-1) ?? nextSid() : generated.MessageSid;
        for (const [key, value] of Object.entries(generated.extra)) fields.push([key, value]);
        if (sid !== undefined) fields.push(['MessageSid', sid]);
        // A Body in a non-UTF-8 form replaces the generated one (two would be a repeated field).
        const ownBody = generated.encoding === 'bad-escapes' || generated.encoding === 'raw-bytes';
        for (const key of ['AccountSid', 'From', 'To', 'Body', 'NumMedia', 'OptOutType', 'ProfileName'] as const) {
          const value = generated[key];
          if (value !== undefined && !(key === 'Body' && ownBody)) fields.push([key, value]);
        }
        let payload: string | Buffer = fields.map(([key, value]) => `${formEncode(key)}=${formEncode(value)}`).join('&');
        if (generated.encoding === 'bad-escapes') payload += '&Body=%FF%FE%C3%28%E0%A4%';
        if (generated.encoding === 'repeated') payload += `&From=${encodeURIComponent('+14155550100')}`;
        if (generated.encoding === 'raw-bytes') payload = Buffer.concat([Buffer.from(payload), Buffer.from('&Body=caf'), Buffer.from([0xe9, 0xff, 0xfe])]);
        // Signed over what the server will parse, as Twilio signs what it sends.
        const parsed = parseForm(payload.toString()) as Record<string, string>;
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (generated.signature === 'valid') headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(harness.twilio.authToken, `${PUBLIC_BASE_URL}/twilio/messages`, parsed);
        if (generated.signature === 'wrong') headers['x-twilio-signature'] = 'bm90IGEgc2lnbmF0dXJl';

        const before = await messageCount();
        const response = await harness.herald.app.inject({ method: 'POST', url: '/twilio/messages', headers, payload });
        const after = await messageCount();
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);

        expect(response.statusCode, `answered ${response.statusCode}: ${response.body.slice(0, 200)}`).toBeLessThan(500);
        if (response.statusCode !== 200 || generated.signature !== 'valid') {
          expect(after - before, 'a refused webhook stored something').toBe(0);
          return;
        }
        const parsedSid = parsed.MessageSid;
        if (typeof parsedSid === 'string' && accepted.has(parsedSid)) {
          expect(after - before, 'a repeated delivery was stored again').toBe(0);
          return;
        }
        expect(after - before, 'an accepted webhook was not stored exactly once').toBe(1);
        accepted.set(parsedSid as string, (parsed.Body ?? '').replaceAll('\u0000', '').trim());
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    const seconds = (performance.now() - started) / 1000;

    // Every accepted message is there exactly once, with the text that was sent.
    const { rows } = await pool.query<{ twilioSid: string; content: string; copies: number }>(
      `SELECT "twilioSid", min(content) AS content, count(*)::int AS copies FROM "Message" WHERE role = 'user' GROUP BY "twilioSid"`,
    );
    expect(rows.filter((row) => row.copies !== 1)).toEqual([]);
    expect(new Set(rows.map((row) => row.twilioSid))).toEqual(new Set(accepted.keys()));
    for (const row of rows) expect(row.content, `message ${row.twilioSid}`).toBe(accepted.get(row.twilioSid));

    const summary = [...statuses.entries()].sort(([left], [right]) => left - right).map(([status, count]) => `${status}: ${count}`).join(', ');
    process.stdout.write(`webhook fuzz: ${runs} requests in ${seconds.toFixed(1)} s (${(runs / seconds).toFixed(0)}/s); ${accepted.size} stored; statuses ${summary}\n`);
    expect(runs).toBe(RUNS);
    // The generator must reach both sides, or the properties prove little.
    expect(accepted.size).toBeGreaterThan(RUNS / 10);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 20);
    expect(statuses.get(403) ?? 0).toBeGreaterThan(RUNS / 20);

    async function messageCount(): Promise<number> {
      const { rows: counted } = await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM "Message"');
      return counted[0]!.count;
    }
  }, 60_000 + RUNS * 60);
});

/** Percent-encodes as a client would send it: a lone surrogate goes out as U+FFFD (UTF-8 cannot carry it). */
function formEncode(value: string): string {
  return encodeURIComponent(Buffer.from(value, 'utf8').toString('utf8'));
}

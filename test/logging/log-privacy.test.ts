import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskPhoneNumbers } from '../../src/logging/logger.js';
import { waitUntil } from '../db/wait-until.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { HeraldHarness, PUBLIC_BASE_URL, TEST_ENCRYPTION_KEY } from '../helpers/herald-harness.js';
import { startHeraldProcess } from '../helpers/herald-process.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { CookieJar } from '../helpers/browser-cookies.js';

/**
 * What Herald's logs at `info` must never carry (issue 11, item 5): message bodies, replies,
 * reminder texts, secrets (API keys, the Twilio token, the encryption key, OAuth codes and
 * tokens, URL credentials), or a phone number's full digits. The output of a whole turn, a
 * reminder firing and a Google connect flow is captured and scanned for each.
 */
describe('log privacy at info', () => {
  let harness: HeraldHarness;
  let google: FakeGoogleServer;

  beforeAll(async () => {
    google = await FakeGoogleServer.start();
    harness = await HeraldHarness.start({ logLevel: 'info', env: google.env() });
  });
  afterAll(async () => {
    await harness.close();
    await google.close();
  });

  it('masks phone numbers to their last four digits, in any line, keeping JSON valid', () => {
    const line = JSON.stringify({ to: '+14155550877', from: 'whatsapp:+447911123456', count: 14155550877, at: '2026-11-23T10:00:00+02:00' });
    const masked = maskPhoneNumbers(line);
    expect(JSON.parse(masked)).toEqual({ to: '+*******0877', from: 'whatsapp:+********3456', count: 14155550877, at: '2026-11-23T10:00:00+02:00' });
  });

  it('logs a turn, a reminder firing and a Google connect flow without bodies, secrets or full phone numbers', async () => {
    const phone = '+14155550877';
    const user = await harness.database.prisma.user.create({ data: { phone, timezone: 'America/Los_Angeles', name: 'Ana', updatedAt: new Date() } });
    const dueLocal = DateTime.now().setZone('America/Los_Angeles').plus({ seconds: 4 }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'reminder', goal: 'Remind the user', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Call Dana about lilac-harbor-quartz" at ${dueLocal}` }] } }] },
      {
        toolCalls: [
          { name: 'create_scheduled_job', input: { text: 'Call Dana about lilac-harbor-quartz', at: dueLocal } },
          { name: 'complete_step', input: { summary: 'Reminder created', reply: 'Okay: amber-violin-reply, I will remind you.', created: [{ description: 'Call Dana' }] } },
        ],
      },
    );
    expect((await harness.inbound({ from: phone, body: 'remind me to call Dana about lilac-harbor-quartz in 3 seconds' })).statusCode).toBe(200);
    const [reply, reminder] = await harness.replies(2);
    expect(reply?.body).toBe('Okay: amber-violin-reply, I will remind you.');
    expect(reminder?.body).toContain('lilac-harbor-quartz');

    // Connecting Google: a link, consent, the code exchanged for tokens.
    const { url } = await harness.herald.calendar.links.issue(user.id, 'google-calendar');
    const path = (full: string) => full.slice(PUBLIC_BASE_URL.length);
    const page = await harness.herald.app.inject({ method: 'GET', url: path(url) });
    const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '';
    const started = await harness.herald.app.inject({
      method: 'POST',
      url: path(url),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: value('_csrf'), _revision: value('_revision'), _section: value('_section') }).toString(),
    });
    expect(started.statusCode).toBe(303);
    const approved = await fetch(new URL(started.headers.location as string), { redirect: 'manual' });
    const callback = approved.headers.get('location')!;
    const done = await harness.herald.app.inject({ method: 'GET', url: path(callback), headers: { cookie: new CookieJar().take(started.headers).header(callback) } });
    expect(done.statusCode).toBe(200);
    expect(await harness.database.prisma.connection.count({ where: { userId: user.id } })).toBe(1);
    await harness.settle();

    const text = harness.logs.text();
    const lines = harness.logs.lines;
    // The flows were logged (at info) — or the scan below would prove nothing.
    for (const message of ['turn started', 'turn finished', 'inbound message stored']) expect(lines.some((line) => line.msg === message)).toBe(true);
    expect(lines.every((line) => line.level >= 30)).toBe(true);
    for (const forbidden of [
      'lilac-harbor-quartz', // the user's text and the reminder's
      'amber-violin-reply', // Herald's reply
      '4155550877', // the number's digits, in any format
      harness.twilio.authToken,
      'test-anthropic-key',
      TEST_ENCRYPTION_KEY,
      google.clientSecret,
      new URL(callback).searchParams.get('code')!,
      new URL(url).pathname.split('/').at(-1)!, // the connect link's token
    ]) {
      expect(text, `the logs contain ${forbidden}`).not.toContain(forbidden);
    }
    expect(text).not.toMatch(/refresh-|ya29\./);
  }, 60_000);

  it('logs the number a local-mode reply went to with only its last four digits', async () => {
    // Local mode (no Twilio credentials): the console transport logs each reply's recipient.
    const local = await HeraldHarness.start({ logLevel: 'info', env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' } });
    try {
      local.anthropic.enqueue({ text: 'Hello from the console.' });
      expect((await local.inbound({ from: '+14155550878', body: 'hello there' })).statusCode).toBe(200);
      await waitUntil(() => local.logs.lines.some((line) => line.msg?.startsWith('outbound message recorded')), 'the console transport to record the reply');
      const recorded = local.logs.lines.find((line) => line.msg?.startsWith('outbound message recorded'));
      expect(recorded?.to).toBe('+*******0878');
      expect(local.logs.text()).not.toContain('4155550878');
    } finally {
      await local.close();
    }
  });

  it('never prints credentials in PUBLIC_BASE_URL at start-up', async () => {
    const database = await createTestDatabase();
    try {
      const instance = await startHeraldProcess({
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: database.url,
        PUBLIC_BASE_URL: 'https://twilio:hunter2-basic-secret@herald.example.test',
        TWILIO_AUTH_TOKEN: 'a-twilio-token-never-printed',
        TWILIO_SMS_FROM: '+15005550006',
      });
      const exitCode = await instance.terminate();
      expect(exitCode).toBe(0);
      const output = instance.output.join('\n');
      expect(output).toContain('herald.example.test');
      expect(output).not.toContain('hunter2-basic-secret');
      expect(output).not.toContain('a-twilio-token-never-printed');
    } finally {
      await database.drop();
    }
  }, 90_000);
});

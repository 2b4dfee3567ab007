import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';
import { parseScrape, sampleValue, type Sample } from './scrape.js';
import { waitUntil } from '../db/wait-until.js';

/**
 * `GET /metrics` (METRICS_TOKEN): Prometheus text to the bearer of the token only, and after
 * a realistic session (a planned turn with a tool, a direct answer, a confirmation asked and
 * answered YES, a WhatsApp message, a duplicate delivery, a malformed webhook) every metric
 * an operator needs is there, while no label carries a phone number, a user id, or anything
 * anyone wrote.
 */

const TOKEN = 'metrics-token-0123456789abcdef';
const phone = '+14155557001';
const whatsapp = 'whatsapp:+14155557002';
// Distinctive words, so a leak cannot hide behind common ones.
const texts = ['remember that my axolotl is called Pemberton Quaile', 'delete my Zanzibar list', 'YES', 'what rhymes with Florimel'];
const distinctive = ['axolotl', 'Pemberton', 'Quaile', 'Zanzibar', 'Florimel', 'Noted', 'Feed'];

const deleteListTurns: ScriptedAnthropicResponse[] = [
  { toolCalls: [{ name: 'create_plan', input: { analysis: 'Delete a list', goal: 'Delete the list', steps: [{ id: 'step_1', agent: 'list-agent', task: 'Delete the Zanzibar list' }] } }] },
  {
    toolCalls: [
      { name: 'delete_list', input: { name: 'Zanzibar' } },
      { name: 'complete_step', input: { summary: 'Deleting the list awaits confirmation', reply: 'Your Zanzibar list will go once you confirm.' } },
    ],
  },
];

describe('Prometheus metrics', () => {
  let harness: HeraldHarness;
  let samples: Sample[];
  let scrapeText: string;
  const userIds: string[] = [];

  const scrape = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }, url = '/metrics') => harness.herald.app.inject({ method: 'GET', url, headers });

  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { METRICS_TOKEN: TOKEN } });
    const user = await createUser(harness, phone);
    userIds.push(user.id);
    await harness.herald.lists.addItems(user.id, 'Zanzibar', ['sunscreen', 'hat']);

    // A planned turn whose step calls a tool.
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'A fact', goal: 'Save a fact', steps: [{ id: 'step_1', agent: 'memory-agent', task: 'Save: the axolotl is called Pemberton Quaile' }] } }] },
      {
        toolCalls: [
          { name: 'remember_fact', input: { category: 'personal', subject: 'pet', content: 'Has an axolotl called Pemberton Quaile' } },
          { name: 'complete_step', input: { summary: 'Saved 1 fact', reply: 'Noted: Pemberton Quaile the axolotl.', created: [{ description: 'Has an axolotl called Pemberton Quaile' }] } },
        ],
      },
    );
    expect(await harness.exchange(phone, texts[0]!)).toBe('Noted: Pemberton Quaile the axolotl.');
    // A confirmation asked, then answered YES without a model call.
    harness.anthropic.enqueue(...deleteListTurns);
    expect(await harness.exchange(phone, texts[1]!)).toContain('Reply YES');
    expect(await harness.exchange(phone, texts[2]!)).toMatch(/Deleted/);
    // A direct answer on WhatsApp.
    harness.anthropic.enqueue({ text: 'Florimel rhymes with caramel, nearly.' });
    expect(await harness.exchange(whatsapp, texts[3]!)).toContain('Florimel');
    userIds.push((await harness.database.prisma.user.findUniqueOrThrow({ where: { phone: whatsapp.slice('whatsapp:'.length) } })).id);
    // A reminder fires (2 s from now, in the user's zone).
    const due = DateTime.now().setZone('America/New_York').plus({ seconds: 2 }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
    const sentBefore = harness.twilio.messages.filter((message) => message.to === phone).length;
    expect((await harness.herald.reminders.create(user.id, 'America/New_York', { text: 'Feed Pemberton', at: due })).ok).toBe(true);
    const [reminder] = (await harness.repliesTo(phone, sentBefore + 1)).slice(sentBefore);
    expect(reminder?.body).toContain('Reminder');
    // A duplicate delivery and a malformed webhook.
    const sid = 'SM0000000000000000000000000000dupe';
    harness.anthropic.enqueue({ text: 'Hello again.' });
    expect(await harness.exchange(phone, 'hello', sid)).toBe('Hello again.');
    expect((await harness.inbound({ from: phone, body: 'hello', sid })).statusCode).toBe(200);
    expect((await harness.post('/twilio/messages', { From: phone })).statusCode).toBe(400);
    // Twilio has the last reply once exchange() returns; its outbox row is marked sent just after.
    await harness.idle(phone);
    await harness.idle(whatsapp.slice('whatsapp:'.length));

    const response = await scrape();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    scrapeText = response.body;
    samples = parseScrape(scrapeText);
  });
  afterAll(async () => {
    await harness.close();
  });

  const value = (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);

  it('refuses a scrape without the token, with a wrong one, with another scheme, or with the token in the query string', async () => {
    expect((await scrape({})).statusCode).toBe(401);
    expect((await scrape({ authorization: 'Bearer not-the-token-at-all-000000' })).statusCode).toBe(401);
    expect((await scrape({ authorization: `Bearer ${TOKEN}x` })).statusCode).toBe(401);
    expect((await scrape({ authorization: `Basic ${Buffer.from(`metrics:${TOKEN}`).toString('base64')}` })).statusCode).toBe(401);
    expect((await scrape({ authorization: TOKEN })).statusCode).toBe(401);
    const inQuery = await scrape({}, `/metrics?token=${TOKEN}`);
    expect(inQuery.statusCode).toBe(400);
    expect(inQuery.body).not.toContain(TOKEN);
    // Even with the right header: a token in the URL ends up in access logs, so the request is refused.
    expect((await scrape({ authorization: `Bearer ${TOKEN}` }, `/metrics?access_token=${TOKEN}`)).statusCode).toBe(400);
    // Refusals are logged without the token.
    expect(harness.logs.text()).not.toContain(TOKEN);
  });

  it('counts webhook messages by channel and outcome', () => {
    expect(value('herald_webhook_messages_total', { channel: 'sms', outcome: 'stored' })).toBe(4);
    expect(value('herald_webhook_messages_total', { channel: 'whatsapp', outcome: 'stored' })).toBe(1);
    expect(value('herald_webhook_messages_total', { channel: 'sms', outcome: 'duplicate' })).toBe(1);
    // The malformed webhook never reached the service: it shows in the HTTP metrics as a 400.
    expect(value('herald_http_request_duration_seconds_count', { route: '/twilio/messages', method: 'POST', status: '400' })).toBe(1);
    expect(value('herald_http_request_duration_seconds_count', { route: '/twilio/messages', method: 'POST', status: '200' })).toBe(6);
  });

  it('counts turns by outcome and times webhook to reply handed to Twilio', () => {
    expect(value('herald_turns_total', { outcome: 'replied' })).toBe(5);
    expect(value('herald_turns_total', { outcome: 'apology' })).toBe(0);
    expect(value('herald_turn_reply_seconds_count', { channel: 'sms' })).toBe(4);
    expect(value('herald_turn_reply_seconds_count', { channel: 'whatsapp' })).toBe(1);
    expect(value('herald_turn_reply_seconds_sum')).toBeGreaterThan(0);
  });

  it('counts model calls, tokens and cost by model and role', () => {
    expect(value('herald_model_calls_total', { outcome: 'ok' })).toBe(6);
    expect(value('herald_model_calls_total', { role: 'memory-agent', outcome: 'ok' })).toBe(1);
    for (const type of ['input', 'output']) expect(value('herald_model_tokens_total', { type })).toBeGreaterThan(0);
    expect(samples.some((sample) => sample.name === 'herald_model_tokens_total' && sample.labels.type === 'cache_read')).toBe(true);
    expect(samples.some((sample) => sample.name === 'herald_model_tokens_total' && sample.labels.type === 'cache_write')).toBe(true);
    expect(value('herald_model_cost_usd_total')).toBeGreaterThan(0);
    expect(new Set(samples.filter((sample) => sample.name === 'herald_model_calls_total').map((sample) => sample.labels.model))).toEqual(new Set(['claude-sonnet-5-5', 'claude-haiku-5-5']));
  });

  it('times reminders from their due time to Twilio', () => {
    expect(value('herald_reminder_lateness_seconds_count')).toBe(1);
    expect(value('herald_reminder_lateness_seconds_sum')).toBeGreaterThanOrEqual(0);
  });

  it('counts outbox sends, questions, and reads queue depth and waiting messages at scrape time', () => {
    // Five replies and the reminder.
    expect(value('herald_outbox_sends_total', { channel: 'sms', status: 'sent', error_code: 'none' })).toBe(5);
    expect(value('herald_outbox_sends_total', { channel: 'whatsapp', status: 'sent' })).toBe(1);
    expect(value('herald_outbox_waiting')).toBe(0);
    expect(samples.filter((sample) => sample.name === 'herald_queue_jobs').map((sample) => sample.labels.queue)).toContain('turn');
    expect(value('herald_questions_total', { kind: 'confirmation', outcome: 'asked' })).toBe(1);
    expect(value('herald_questions_total', { kind: 'confirmation', outcome: 'answered' })).toBe(1);
    expect(value('herald_turn_lease_takeovers_total')).toBe(0);
    // The last turn's drain may still be finishing up after its reply went out: 0 or 1.
    expect(samples.filter((sample) => sample.name === 'herald_turns_in_flight').map((sample) => sample.value)).toEqual([expect.any(Number)]);
  });

  it("serves Node's default process metrics", () => {
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(samples.some((sample) => sample.name === name), name).toBe(true);
    }
  });

  it('never puts a phone number, a user id or anything anyone wrote in a label', () => {
    const labelValues = samples.flatMap((sample) => Object.values(sample.labels));
    expect(labelValues.length).toBeGreaterThan(100);
    for (const label of labelValues) {
      expect(label).not.toMatch(/\+?\d{7,}/);
      expect(label).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
      for (const word of distinctive) expect(label.toLowerCase()).not.toContain(word.toLowerCase());
    }
    // Nor anywhere else in the exposition (help texts included).
    for (const secret of [phone, phone.slice(2), ...userIds, ...distinctive]) expect(scrapeText).not.toContain(secret);
  });
});

describe('lease takeovers', () => {
  it("counts each lapsed lease the periodic sweep takes over (an instance died mid-turn)", async () => {
    const harness = await HeraldHarness.start({ env: { METRICS_TOKEN: TOKEN, TURN_LEASE_SWEEP_MS: '100' } });
    try {
      const { prisma } = harness.database;
      for (const phone of ['+14155557101', '+14155557102']) {
        const user = await prisma.user.create({ data: { phone, timezone: 'UTC', updatedAt: new Date() } });
        // What a SIGKILLed holder leaves: a lease that lapsed without being released.
        await prisma.$executeRaw`UPDATE "User" SET "turnLeaseOwner" = 'dead', "turnLeaseUntil" = (now() AT TIME ZONE 'UTC') - interval '1 second' WHERE id = ${user.id}::uuid`;
      }
      const takeovers = async () => parseScrape((await harness.herald.metrics.scrape()).body).find((sample) => sample.name === 'herald_turn_lease_takeovers_total')?.value;
      // The sweep runs on its own timer: no event to await, so its effect is polled.
      await waitUntil(async () => (await takeovers()) === 2, 'both lapsed leases taken over');
      expect(await prisma.user.count({ where: { turnLeaseOwner: 'dead' } })).toBe(0);
    } finally {
      await harness.close();
    }
  });
});

describe('without METRICS_TOKEN', () => {
  it('has no /metrics route at all', async () => {
    const harness = await HeraldHarness.start({ start: false });
    try {
      expect((await harness.herald.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer anything-anything-anything' } })).statusCode).toBe(404);
      expect(harness.herald.metrics.enabled).toBe(false);
    } finally {
      await harness.close();
    }
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { eventually } from '../helpers/eventually.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

/**
 * RCS as a channel (issue 24, item 1), through the webhook: `rcs:+1…` is the same person as
 * that number's SMS and WhatsApp; replies, reminders and notices go through the Messaging
 * Service (TWILIO_MESSAGING_SERVICE_SID) to the bare number, Twilio falling back to SMS by
 * itself; the status callback records the channel a message really went on; opt-out
 * follows the SMS rules; an `rcs:` address with no number is refused (400), nothing stored.
 */
const SERVICE = 'MG' + 'b'.repeat(32);
const RCS_AGENT = 'rcs:herald_test_agent';

describe('RCS through the Messaging Service', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-11-26T12:00:00Z');
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { TWILIO_MESSAGING_SERVICE_SID: SERVICE } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    clock.set('2026-11-26T12:00:00Z');
    counter += 1;
    phone = `+1415555${String(5200 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Texts Herald over RCS and returns the next message it sends the number (on any channel). */
  async function sendRcs(body: string, extra: Record<string, string> = {}) {
    const before = harness.twilio.messages.filter((message) => message.to === phone).length;
    const response = await harness.inbound({ from: `rcs:${phone}`, to: RCS_AGENT, body, extra });
    expect(response.statusCode).toBe(200);
    return (await harness.repliesTo(phone, before + 1))[before]!;
  }

  it('answers an RCS user through the Messaging Service, as the same user as their SMS number', async () => {
    harness.anthropic.enqueue({ text: 'Hello over RCS!' });
    const reply = await sendRcs('hi');
    expect(reply).toMatchObject({ to: phone, from: null, messagingServiceSid: SERVICE, body: 'Hello over RCS!' });
    const users = await harness.database.prisma.user.findMany({ where: { phone } });
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ id: userId, preferredChannel: 'rcs' });
    const inbound = await harness.database.prisma.message.findFirstOrThrow({ where: { userId, role: 'user' } });
    expect(inbound).toMatchObject({ channel: 'rcs', heraldAddress: RCS_AGENT });
    // The user's SMS message lands in the same conversation.
    harness.anthropic.enqueue({ text: 'And hello over SMS.' });
    expect(await harness.exchange(phone, 'hi again')).toBe('And hello over SMS.');
    expect(await harness.database.prisma.message.count({ where: { userId, role: 'user' } })).toBe(2);
  });

  it('records the channel a reply really went on from the status callback (RCS, or Twilio\'s SMS fallback)', async () => {
    harness.anthropic.enqueue({ text: 'One.' }, { text: 'Two.' });
    const first = await sendRcs('one');
    const second = await sendRcs('two');
    const callback = (sid: string, from: string) =>
      harness.post('/twilio/status', { MessageSid: sid, AccountSid: harness.twilio.accountSid, MessageStatus: 'delivered', To: phone, From: from, MessagingServiceSid: SERVICE });
    // Twilio has the messages; Herald records their sids right after (a callback for a sid not yet
    // recorded finds nothing to move).
    for (const sid of [first.sid, second.sid]) await eventually(async () => (await harness.database.prisma.outboundMessage.findUnique({ where: { twilioSid: sid } })) ?? undefined, `the part sent as ${sid} recorded`);
    expect((await callback(first.sid, RCS_AGENT)).statusCode).toBe(200);
    expect((await callback(second.sid, '+15005550006')).statusCode).toBe(200);
    const part = (sid: string) => harness.database.prisma.outboundMessage.findUniqueOrThrow({ where: { twilioSid: sid } });
    expect(await part(first.sid)).toMatchObject({ channel: 'rcs', finalChannel: 'rcs', status: 'delivered' });
    expect(await part(second.sid)).toMatchObject({ channel: 'rcs', finalChannel: 'sms', status: 'delivered' });
  });

  it('follows the SMS opt-out rules on RCS: CANCEL unsubscribes', async () => {
    const reply = await sendRcs('CANCEL');
    expect(reply.body).toMatch(/^You're unsubscribed/);
    expect(reply.messagingServiceSid).toBe(SERVICE);
    expect(await harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({ optedOut: true });
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('an RCS answer too long for one message arrives as a lead and a page link', async () => {
    const long = Array.from({ length: 60 }, (_, index) => `Line ${index + 1} of a long answer about your week, with enough words in it.`).join('\n');
    harness.anthropic.enqueue({ text: long });
    const reply = await sendRcs('tell me everything');
    expect(reply.body!.length).toBeLessThanOrEqual(1600);
    expect(reply.body).toMatch(/https:\/\/herald\.test\/p\//);
  });

  it('refuses an rcs: address with no number behind it: 400, logged, nothing stored', async () => {
    const before = await harness.database.prisma.message.count();
    const usersBefore = await harness.database.prisma.user.count();
    for (const from of ['rcs:', 'rcs:herald_agent', 'rcs: ']) {
      const response = await harness.inbound({ from, to: RCS_AGENT, body: 'hi' });
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('RCS address with no phone number');
    }
    expect(await harness.database.prisma.message.count()).toBe(before);
    expect(await harness.database.prisma.user.count()).toBe(usersBefore);
    expect(harness.logs.lines.some((line) => line.msg === 'inbound message rejected' && String(line.reason).includes('RCS'))).toBe(true);
  });

  it('delivers a reminder to an RCS user through the Messaging Service', async () => {
    await harness.database.prisma.user.update({ where: { id: userId }, data: { preferredChannel: 'rcs' } });
    const created = await harness.herald.reminders.create(userId, 'America/New_York', { text: 'call mom', at: '2026-11-26T07:30' });
    if (!created.ok) throw new Error(created.error);
    clock.set('2026-11-26T12:30:00Z');
    await harness.herald.reminderDelivery.deliver({ reminderId: created.value.id, dueAt: '2026-11-26T12:30:00.000Z' });
    const [sent] = await harness.repliesTo(phone, 1);
    expect(sent).toMatchObject({ to: phone, messagingServiceSid: SERVICE });
    expect(sent!.body).toContain('call mom');
    expect(await harness.database.prisma.outboundMessage.findFirstOrThrow({ where: { userId, kind: 'reminder' } })).toMatchObject({ channel: 'rcs' });
  });
});

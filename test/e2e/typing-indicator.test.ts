import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { TypingIndicators } from '../../src/turns/typing-indicator.js';
import { capturingLogger, HeraldHarness, messageSid } from '../helpers/herald-harness.js';
import { textingUser } from '../helpers/texting-user.js';
import { eventually } from '../helpers/eventually.js';

/**
 * "Typing…" while Herald thinks (issue 24, item 3), through the webhook with the real SDK
 * against the fake Twilio's Messaging v2 Indicators/Typing: sent for a WhatsApp message whose
 * turn calls the model, before the reply, and again every TYPING_INDICATOR_EVERY_MS while the
 * model works; never for answers that need no model, never on SMS, never twice for one
 * message; a 4xx is logged and the turn goes on; TYPING_INDICATOR=off sends none.
 */
describe('the WhatsApp typing indicator', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 5800, harness: { env: { TYPING_INDICATOR_EVERY_MS: '1000' } } });
  let harness: HeraldHarness;
  let phone: string;
  beforeEach(() => {
    ({ harness, phone } = user);
  });
  const whatsapp = () => `whatsapp:${phone}`;

  it('is sent for the user\'s message when the turn calls the model, before the reply', async () => {
    // Whatever the machine's load, the model answers only once "typing…" has reached Twilio.
    harness.anthropic.enqueue(async () => {
      await harness.twilio.typing.waitForRequests(1);
      return { text: 'Hello!' };
    });
    const sid = messageSid();
    expect((await harness.inbound({ from: whatsapp(), body: 'hi', sid })).statusCode).toBe(200);
    const [reply] = await harness.repliesTo(whatsapp(), 1);
    expect(reply!.body).toBe('Hello!');
    expect(harness.twilio.typing.accepted).toEqual([expect.objectContaining({ messageId: sid, channel: 'whatsapp' })]);
    expect(harness.twilio.typing.accepted[0]!.receivedAt.getTime()).toBeLessThanOrEqual(reply!.dateCreated.getTime());
    const stored = await harness.database.prisma.message.findUniqueOrThrow({ where: { twilioSid: sid } });
    expect(stored.typingIndicatedAt).not.toBeNull();
  });

  it('is sent again while the model works, and stops once the reply is on its way', async () => {
    // The model answers only after Twilio has shown "typing…" twice.
    harness.anthropic.enqueue(async () => {
      await harness.twilio.typing.waitForRequests(2);
      return { text: 'That took a while.' };
    });
    expect(await user.send('think hard', { from: whatsapp() })).toBe('That took a while.');
    const count = harness.twilio.typing.requests.length;
    expect(count).toBeGreaterThanOrEqual(2);
    await harness.idle(phone);
    expect(harness.twilio.typing.requests.map((request) => request.messageId)).toEqual(Array(count).fill(harness.twilio.typing.requests[0]!.messageId));
  });

  it('is never sent for an answer that needs no model, nor on SMS', async () => {
    expect(await user.send('HELP', { from: whatsapp() })).toMatch(/Herald is your assistant/);
    harness.anthropic.enqueue({ text: 'Hi over SMS.' });
    expect(await user.send('hi', { from: phone })).toBe('Hi over SMS.');
    expect(harness.twilio.typing.requests).toEqual([]);
  });

  it('refused with a 4xx for an old message: logged once, and the turn goes on', async () => {
    const sid = messageSid();
    harness.twilio.typing.markOld(sid);
    harness.anthropic.enqueue({ text: 'Still here.' });
    expect((await harness.inbound({ from: whatsapp(), body: 'hello?', sid })).statusCode).toBe(200);
    expect((await harness.repliesTo(whatsapp(), 1))[0]!.body).toBe('Still here.');
    expect(harness.twilio.typing.accepted).toEqual([]);
    // The indicator is never awaited by the turn, so its warning may land just after the reply.
    const warned = () => harness.logs.lines.filter((line) => line.msg === 'typing indicator failed; the turn goes on' && line.httpStatus === 400);
    await eventually(async () => (warned().length > 0 ? true : undefined), 'the refused typing indicator logged');
    expect(warned()).toHaveLength(1);
  });

  it('is sent at most once for one message, even when its turn runs again after a crash', async () => {
    const sid = messageSid();
    // Answered only once its indicator has reached Twilio: nothing of this test is in flight when it ends.
    harness.anthropic.enqueue(async () => {
      await harness.twilio.typing.waitForRequests(1);
      return { text: 'First.' };
    });
    expect((await harness.inbound({ from: whatsapp(), body: 'once', sid })).statusCode).toBe(200);
    await harness.repliesTo(whatsapp(), 1);
    const message = await harness.database.prisma.message.findUniqueOrThrow({ where: { twilioSid: sid } });
    const before = harness.twilio.typing.requests.length;
    // The same message's turn started again (a new worker after a crash): the claim is taken.
    const sent: string[] = [];
    const indicators = new TypingIndicators({ prisma: harness.database.prisma, api: { send: async (messageSidSent) => void sent.push(messageSidSent) }, clock, everyMs: 1000 });
    const session = indicators.start(message, capturingLogger().logger);
    expect(await session.claimed).toBe(false);
    session.stop();
    expect(sent).toEqual([]);
    expect(harness.twilio.typing.requests.length).toBe(before);
  });
});

describe('TYPING_INDICATOR=off', () => {
  let harness: HeraldHarness;
  beforeAll(async () => {
    harness = await HeraldHarness.start({ env: { TYPING_INDICATOR: 'off' } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('sends no typing indicator', async () => {
    harness.anthropic.enqueue({ text: 'Quietly.' });
    expect(await harness.exchange('whatsapp:+14155559301', 'hi')).toBe('Quietly.');
    expect(harness.twilio.typing.requests).toEqual([]);
  });
});

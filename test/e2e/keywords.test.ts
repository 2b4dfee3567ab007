import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keywordReply } from '../../src/turns/keyword-replies.js';
import { HERALD_SMS_NUMBER, HERALD_WHATSAPP_NUMBER, HeraldHarness } from '../helpers/herald-harness.js';
import type { SentTwilioMessage } from '../fakes/fake-twilio-server.js';

const STOP_REPLY = keywordReply('stop', null);
const START_REPLY = keywordReply('start', null);
const HELP_REPLY = keywordReply('help', null);

describe('keywords: STOP, START, HELP without the model', () => {
  let harness: HeraldHarness;

  beforeAll(async () => {
    harness = await HeraldHarness.start();
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  const userByPhone = (phone: string) => harness.database.prisma.user.findUniqueOrThrow({ where: { phone } });

  it('opts the user out on STOP and every opt-out word (any case, padded, punctuated), confirms on SMS, and never calls the model', async () => {
    const variants = ['STOP', 'stop', ' Stop. ', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'STOPALL', 'stop all', 'Unsubscribe!'];
    const phones = variants.map((_, index) => `+1212555${String(100 + index).padStart(4, '0')}`);

    const responses = await Promise.all(variants.map((body, index) => harness.inbound({ from: phones[index]!, body })));
    expect(responses.map((response) => response.statusCode)).toEqual(variants.map(() => 200));

    for (const phone of phones) {
      const [reply, ...more] = await harness.repliesTo(phone, 1);
      expect(more).toEqual([]);
      expect(reply).toMatchObject({ to: phone, from: HERALD_SMS_NUMBER, body: STOP_REPLY });
      const user = await userByPhone(phone);
      expect(user.optedOut).toBe(true);
      expect(user.optedOutAt).not.toBeNull();
    }
    expect(harness.anthropic.requests).toHaveLength(0);
    const turns = await harness.database.prisma.turn.findMany({ where: { user: { phone: { in: phones } } } });
    expect(turns).toHaveLength(variants.length);
    expect(turns.every((turn) => turn.status === 'succeeded' && turn.modelCalls === 0)).toBe(true);
  });

  it('sends nothing for an SMS STOP that Twilio already answered (OptOutType=STOP), but records the opt-out', async () => {
    const phone = '+12125550201';
    await harness.inbound({ from: phone, body: 'STOP', extra: { OptOutType: 'STOP' } });
    // Later the same person writes "yes" on WhatsApp, where Twilio handles no keywords.
    // "yes" only opts back in while opted out, so the welcome back proves the SMS STOP
    // took effect; per-user ordering proves its turn finished first.
    await harness.inbound({ from: `whatsapp:${phone}`, body: 'yes' });

    const [welcome] = await harness.repliesTo(`whatsapp:${phone}`, 1);
    expect(welcome).toMatchObject({ from: HERALD_WHATSAPP_NUMBER, body: START_REPLY });
    expect(harness.twilio.messages.filter((message) => message.to === phone)).toEqual([]);
    expect(harness.anthropic.requests).toHaveLength(0);

    const user = await userByPhone(phone);
    const stop = await harness.database.prisma.message.findFirstOrThrow({ where: { userId: user.id, content: 'STOP' } });
    expect(stop).toMatchObject({ inboundStatus: 'handled', optOutType: 'STOP' });
    expect(await harness.database.prisma.outboundMessage.count({ where: { turnId: stop.turnId! } })).toBe(0);
    expect(user.optedOut).toBe(false);
  });

  it('confirms STOP on WhatsApp, where Twilio does not answer keywords itself', async () => {
    const address = 'whatsapp:+12125550301';
    await harness.inbound({ from: address, body: 'Stop' });

    const [reply] = await harness.repliesTo(address, 1);
    expect(reply).toMatchObject({ from: HERALD_WHATSAPP_NUMBER, body: STOP_REPLY });
    expect((await userByPhone('+12125550301')).optedOut).toBe(true);
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it("ignores an opted-out user's ordinary message (stored as ignored, no reply, no model) until START, which welcomes them back", async () => {
    const phone = '+12125550401';
    await harness.inbound({ from: phone, body: 'STOP' });
    await harness.repliesTo(phone, 1);
    await harness.inbound({ from: phone, body: 'are you still there?' });
    await harness.inbound({ from: phone, body: 'START' });

    const replies = await harness.repliesTo(phone, 2);
    expect(replies.map((reply) => reply.body)).toEqual([STOP_REPLY, START_REPLY]);
    expect(harness.anthropic.requests).toHaveLength(0);
    const user = await userByPhone(phone);
    expect(user).toMatchObject({ optedOut: false, optedOutAt: null });
    const ignored = await harness.database.prisma.message.findFirstOrThrow({ where: { userId: user.id, content: 'are you still there?' } });
    expect(ignored.inboundStatus).toBe('ignored');

    // Back in: an ordinary message reaches the model, and the ignored one is not in its history.
    harness.anthropic.enqueue({ text: 'Yes, I am here.' });
    await harness.inbound({ from: phone, body: 'hello again' });
    const all = await harness.repliesTo(phone, 3);
    expect(all[2]?.body).toBe('Yes, I am here.');
    expect(harness.anthropic.requests).toHaveLength(1);
    const request = harness.anthropic.requests[0]!;
    expect(request.lastUserText()).toBe('hello again');
    expect(request.allText()).not.toContain('are you still there?');
  });

  it('treats YES as START while opted out, and as ordinary text for the model otherwise', async () => {
    const optedOutPhone = '+12125550501';
    await harness.inbound({ from: optedOutPhone, body: 'QUIT' });
    await harness.repliesTo(optedOutPhone, 1);
    await harness.inbound({ from: optedOutPhone, body: 'YES' });
    const replies = await harness.repliesTo(optedOutPhone, 2);
    expect(replies[1]?.body).toBe(START_REPLY);
    expect((await userByPhone(optedOutPhone)).optedOut).toBe(false);
    expect(harness.anthropic.requests).toHaveLength(0);

    const subscribedPhone = '+12125550502';
    harness.anthropic.enqueue({ text: 'Done, the reminder is set.' });
    await harness.inbound({ from: subscribedPhone, body: 'yes' });
    const [answer] = await harness.repliesTo(subscribedPhone, 1);
    expect(answer?.body).toBe('Done, the reminder is set.');
    expect(harness.anthropic.requests).toHaveLength(1);
    expect(harness.anthropic.requests[0]!.lastUserText()).toBe('yes');
    expect((await userByPhone(subscribedPhone)).optedOut).toBe(false);
  });

  it('answers HELP and INFO with the help text, without the model and without opting out', async () => {
    const phones = ['+12125550601', '+12125550602', '+12125550603'];
    await Promise.all([
      harness.inbound({ from: phones[0]!, body: 'HELP' }),
      harness.inbound({ from: phones[1]!, body: 'info' }),
      harness.inbound({ from: `whatsapp:${phones[2]!}`, body: ' Help! ' }),
    ]);
    expect((await harness.repliesTo(phones[0]!, 1))[0]?.body).toBe(HELP_REPLY);
    expect((await harness.repliesTo(phones[1]!, 1))[0]?.body).toBe(HELP_REPLY);
    expect((await harness.repliesTo(`whatsapp:${phones[2]!}`, 1))[0]?.body).toBe(HELP_REPLY);
    expect(harness.anthropic.requests).toHaveLength(0);
    for (const phone of phones) expect((await userByPhone(phone)).optedOut).toBe(false);
  });

  it('treats "stop the reminder" (and other sentences containing a keyword) as ordinary text for the model', async () => {
    const phone = '+12125550701';
    harness.anthropic.enqueue({ text: 'OK, I stopped the daily reminder.' }, { text: 'Sure, ask away.' });
    await harness.inbound({ from: phone, body: 'stop the reminder' });
    await harness.repliesTo(phone, 1);
    await harness.inbound({ from: phone, body: 'help me with something' });

    const replies = await harness.repliesTo(phone, 2);
    expect(replies.map((reply) => reply.body)).toEqual(['OK, I stopped the daily reminder.', 'Sure, ask away.']);
    expect(harness.anthropic.requests.map((request) => request.lastUserText())).toEqual(['stop the reminder', 'help me with something']);
    expect((await userByPhone(phone)).optedOut).toBe(false);
  });
});

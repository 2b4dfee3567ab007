import { afterEach, describe, expect, it } from 'vitest';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * docs/ARCHITECTURE.md "Request lifecycle" step 5: on start-up, inbound messages that never got a
 * reply, and replies that were never delivered, are picked up again. Nobody is dropped.
 * (Recovery after a real crash is test/e2e/crash-recovery.test.ts; these need none.)
 */
describe('recovery on start-up', () => {
  const harnesses: HeraldHarness[] = [];

  async function start(options: Parameters<typeof HeraldHarness.start>[0] = {}): Promise<HeraldHarness> {
    const harness = await HeraldHarness.start(options);
    harnesses.unshift(harness);
    return harness;
  }

  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });

  it('answers, exactly once, a message that arrived while no worker ran', async () => {
    // An instance has run on this database before (the queue exists), so the webhook
    // stores the message and its turn job; then no worker is running when it arrives.
    const earlier = await start();
    await earlier.settle();
    const harness = await start({ database: earlier.database, start: false });
    harness.anthropic.enqueue({ text: 'Sorry for the wait: yes, I am here.' });

    const response = await harness.inbound({ from: '+14155550601', body: 'anyone home?' });
    expect(response.statusCode).toBe(200);
    const [stored] = await harness.database.prisma.message.findMany({ where: { role: 'user' } });
    expect(stored?.inboundStatus).toBe('pending');
    expect(harness.anthropic.requests).toHaveLength(0);

    // Both its own turn job and start-up recovery now schedule the user: still one answer.
    await harness.herald.start();
    const [reply] = await harness.replies(1);
    expect(reply).toMatchObject({ to: '+14155550601', body: 'Sorry for the wait: yes, I am here.' });
    await harness.settle();
    expect(harness.twilio.messages).toHaveLength(1);
    expect(harness.anthropic.requests).toHaveLength(1);
    const inbound = await harness.database.prisma.message.findMany({ where: { role: 'user' } });
    expect(inbound.map((message) => message.inboundStatus)).toEqual(['handled']);
  });

  it('stores, and answers once started, a message that arrives before the queue ever existed', async () => {
    // A brand-new database: no worker has ever started, so the queue has no tables yet.
    // The message must still be stored (Twilio does not retry messaging webhooks by default).
    const harness = await start({ start: false });
    harness.anthropic.enqueue({ text: 'Here now.' });
    const response = await harness.inbound({ from: '+14155550602', body: 'hello?' });
    expect(response.statusCode).toBe(200);
    expect(await harness.database.prisma.message.count({ where: { role: 'user', inboundStatus: 'pending' } })).toBe(1);

    await harness.herald.start();
    const [reply] = await harness.replies(1);
    expect(reply).toMatchObject({ to: '+14155550602', body: 'Here now.' });
    await harness.settle();
    expect(harness.twilio.messages).toHaveLength(1);
  });

  it('delivers a staged reply that was never sent', async () => {
    const harness = await start({ start: false });
    const { herald, database } = harness;
    const user = await database.prisma.user.create({ data: { phone: '+14155550603', timezone: 'UTC', updatedAt: new Date() } });
    await database.prisma.$transaction((transaction) =>
      herald.outbox.stage(transaction, {
        userId: user.id,
        kind: 'reply',
        channel: 'sms',
        toAddress: '+14155550603',
        text: 'This reply was stored but never sent.',
      }),
    );
    expect(harness.twilio.requests).toHaveLength(0);

    await herald.start();
    const [sent] = await harness.replies(1);
    expect(sent).toMatchObject({ to: '+14155550603', from: '+15005550006', body: 'This reply was stored but never sent.' });
    await harness.settle();
    expect(harness.twilio.messages).toHaveLength(1);
    const [row] = await database.prisma.outboundMessage.findMany();
    expect(row).toMatchObject({ status: 'queued', attempts: 1, twilioSid: sent?.sid });
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('re-sends a part whose sender crashed mid-send once its claim has lapsed', async () => {
    const harness = await start({ start: false });
    const { herald, database } = harness;
    const user = await database.prisma.user.create({ data: { phone: '+14155550604', timezone: 'UTC', updatedAt: new Date() } });
    await database.prisma.$transaction((transaction) =>
      herald.outbox.stage(transaction, { userId: user.id, kind: 'reply', channel: 'sms', toAddress: '+14155550604', text: 'Second try.' }),
    );
    // As a sender that claimed the part and died leaves it: dispatching, claim expired.
    await database.prisma.outboundMessage.updateMany({
      data: { status: 'dispatching', statusRank: 1, attempts: 1, nextAttemptAt: new Date(Date.now() - 1_000) },
    });

    await herald.start();
    const [sent] = await harness.replies(1);
    expect(sent?.body).toBe('Second try.');
    await harness.settle();
    const [row] = await database.prisma.outboundMessage.findMany();
    expect(row).toMatchObject({ status: 'queued', attempts: 2, twilioSid: sent?.sid });
  });

  it('delivers undelivered replies before answering the next message, in order', async () => {
    const harness = await start({ start: false });
    const { herald, database } = harness;
    const user = await database.prisma.user.create({ data: { phone: '+14155550605', timezone: 'UTC', updatedAt: new Date() } });
    await database.prisma.$transaction((transaction) =>
      herald.outbox.stage(transaction, { userId: user.id, kind: 'reply', channel: 'sms', toAddress: '+14155550605', text: 'Old reply.' }),
    );
    harness.anthropic.enqueue({ text: 'New reply.' });
    await harness.inbound({ from: '+14155550605', body: 'new question' });

    await herald.start();
    const replies = await harness.replies(2);
    expect(replies.map((reply) => reply.body)).toEqual(['Old reply.', 'New reply.']);
  });
});

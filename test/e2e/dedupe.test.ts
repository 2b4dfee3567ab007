import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedAnthropicRequest } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness, messageSid } from '../helpers/herald-harness.js';

/**
 * docs/ARCHITECTURE.md "Request lifecycle" step 2: a webhook delivered again (Twilio retries, a
 * second instance behind the load balancer) gets 200 and never a second reply.
 *
 * "Exactly one" can only be asserted once the system is provably past the point where a
 * second reply could still be produced: every test stops Herald gracefully first (stop
 * drains the turns in flight and their deliveries), then counts.
 */
describe('webhook de-duplication', () => {
  const harnesses: HeraldHarness[] = [];

  /** Starts a Herald whose model echoes what it was told, so every reply names its message. */
  async function start(options: Parameters<typeof HeraldHarness.start>[0] = {}): Promise<HeraldHarness> {
    const harness = await HeraldHarness.start(options);
    harnesses.unshift(harness); // closed newest first: a harness sharing another's database goes before its owner
    harness.anthropic.setFallback((request: RecordedAnthropicRequest) => ({ text: `echo: ${request.lastUserText()}` }));
    return harness;
  }

  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.close();
  });

  it('answers a MessageSid posted twice, one after the other, exactly once', async () => {
    const harness = await start();
    const sid = messageSid();
    const first = await harness.inbound({ from: '+14155550101', body: 'what time is it?', sid });
    const second = await harness.inbound({ from: '+14155550101', body: 'what time is it?', sid });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.headers['content-type']).toMatch(/text\/xml/);

    const [reply] = await harness.replies(1);
    expect(reply).toMatchObject({ to: '+14155550101', body: 'echo: what time is it?' });

    // A third delivery after the reply went out is still a duplicate.
    const late = await harness.inbound({ from: '+14155550101', body: 'what time is it?', sid });
    expect(late.statusCode).toBe(200);

    await harness.settle();
    expect(harness.twilio.messages).toHaveLength(1);
    expect(harness.anthropic.requests).toHaveLength(1);
    const { prisma } = harness.database;
    expect(await prisma.message.count({ where: { role: 'user' } })).toBe(1);
    expect(await prisma.message.count({ where: { twilioSid: sid } })).toBe(1);
    expect(await prisma.turn.count()).toBe(1);
    expect(await prisma.outboundMessage.count()).toBe(1);
  });

  it('treats a repeated I-Twilio-Idempotency-Token as a duplicate even under a different MessageSid', async () => {
    const harness = await start();
    const token = 'idem-token-7f3a9c21';
    const firstSid = messageSid();
    const first = await harness.inbound({ from: '+14155550102', body: 'remind me about the dentist', sid: firstSid }, { 'I-Twilio-Idempotency-Token': token });
    const second = await harness.inbound({ from: '+14155550102', body: 'remind me about the dentist', sid: messageSid() }, { 'I-Twilio-Idempotency-Token': token });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    await harness.replies(1); // so the next message is a turn of its own, not merged into this one

    // A different token with a new sid is a new message and is answered.
    const third = await harness.inbound({ from: '+14155550102', body: 'and the vet', sid: messageSid() }, { 'I-Twilio-Idempotency-Token': 'idem-token-other' });
    expect(third.statusCode).toBe(200);

    const replies = await harness.replies(2);
    await harness.settle();
    expect(replies).toHaveLength(2);
    expect(replies.map((reply) => reply.body)).toEqual(['echo: remind me about the dentist', 'echo: and the vet']);
    const inbound = await harness.database.prisma.message.findMany({ where: { role: 'user' }, orderBy: { createdAt: 'asc' } });
    expect(inbound.map((message) => message.content)).toEqual(['remind me about the dentist', 'and the vet']);
    expect(inbound[0]?.twilioSid).toBe(firstSid);
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('answers the same MessageSid posted five times at once exactly once', async () => {
    const harness = await start();
    const sid = messageSid();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => harness.inbound({ from: '+14155550103', body: 'is it going to rain?', sid })),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);

    await harness.replies(1);
    await harness.settle();
    expect(harness.twilio.messages).toHaveLength(1);
    expect(harness.anthropic.requests).toHaveLength(1);
    const { prisma } = harness.database;
    expect(await prisma.message.count({ where: { role: 'user' } })).toBe(1);
    expect(await prisma.user.count()).toBe(1);
    expect(await prisma.inboundDedupe.count()).toBe(1);
  });

  it("stores every one of a new user's first messages arriving at the same moment: different sids are not duplicates", async () => {
    const harness = await start();
    const bodies = ['one', 'two', 'three', 'four', 'five'];
    const responses = await Promise.all(bodies.map((body) => harness.inbound({ from: '+14155550106', body })));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    await harness.replies(1);
    await harness.settle();

    const { prisma } = harness.database;
    expect(await prisma.user.count()).toBe(1);
    const inbound = await prisma.message.findMany({ where: { role: 'user' } });
    expect(inbound.map((message) => message.content).sort()).toEqual([...bodies].sort());
    expect(inbound.every((message) => message.inboundStatus === 'handled')).toBe(true);
    // However they were batched, every text reached the model exactly once.
    const seen = harness.anthropic.requests.flatMap((request) => request.lastUserText().split('\n'));
    expect(seen.sort()).toEqual([...bodies].sort());
  });

  it('answers once when two instances on one database receive the same MessageSid at the same time', async () => {
    const first = await start();
    // The second instance shares the first one's database and reaches the same fake Twilio
    // and Anthropic, so "one reply in total" is one message at one fake.
    const second = await start({
      database: first.database,
      env: { TWILIO_API_BASE_URL: first.twilio.url, ANTHROPIC_BASE_URL: first.anthropic.url },
    });
    const sid = messageSid();
    const responses = await Promise.all([
      first.inbound({ from: '+14155550104', body: 'book a table for two', sid }),
      second.inbound({ from: '+14155550104', body: 'book a table for two', sid }),
      first.inbound({ from: '+14155550104', body: 'book a table for two', sid }),
      second.inbound({ from: '+14155550104', body: 'book a table for two', sid }),
    ]);
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200]);

    await first.replies(1);
    await Promise.all([first.settle(), second.settle()]);
    expect(first.twilio.messages).toHaveLength(1);
    expect(first.twilio.messages[0]?.body).toBe('echo: book a table for two');
    expect(first.anthropic.requests).toHaveLength(1);
    // Nothing went to the second harness's own fakes.
    expect(second.twilio.requests).toHaveLength(0);
    expect(second.anthropic.requests).toHaveLength(0);
    expect(await first.database.prisma.message.count({ where: { role: 'user' } })).toBe(1);
  });

  it('keeps the shared database when the instance that does not own it closes', async () => {
    const first = await start();
    const second = await start({ database: first.database, env: { TWILIO_API_BASE_URL: first.twilio.url, ANTHROPIC_BASE_URL: first.anthropic.url } });
    await harnesses.shift()?.close(); // the second one
    expect(harnesses).toEqual([first]);
    expect(second.database).toBe(first.database);
    const response = await first.inbound({ from: '+14155550105', body: 'still there?' });
    expect(response.statusCode).toBe(200);
    const [reply] = await first.replies(1);
    expect(reply?.body).toBe('echo: still there?');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../db/wait-until.js';
import { HeraldHarness } from '../helpers/herald-harness.js';

/**
 * What a probe of the landed service found (issue 11, item 6), each pinned by a test
 * through the real webhook: bad input never answers 500 or loses a message, a burst
 * cannot blow up the planner prompt, and the rate limit neither splits one sender into
 * many nor silently drops a real person's text.
 */
describe('probe fixes', () => {
  let harness: HeraldHarness | undefined;

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('keeps a message whose Body holds NUL characters (Postgres cannot store them): stripped, stored, answered', async () => {
    harness = await HeraldHarness.start();
    harness.anthropic.enqueue({ text: 'Got it.' });
    const response = await harness.inbound({ from: '+14155550901', body: 'buy\u0000 milk\u0000' });
    expect(response.statusCode).toBe(200);
    const [stored] = await harness.database.prisma.message.findMany({ where: { role: 'user' } });
    expect(stored?.content).toBe('buy milk');
    const [reply] = await harness.replies(1);
    expect(reply).toMatchObject({ to: '+14155550901', body: 'Got it.' });
    expect(harness.anthropic.requests[0]?.allText()).toContain('buy milk');
  });

  it('caps a burst of 40 simultaneous 10,000-character messages at TURN_MAX_MESSAGE_TOKENS and tells the user what was cut', async () => {
    harness = await HeraldHarness.start({ start: false });
    const h = harness;
    h.anthropic.enqueue({ text: 'That is a lot of text.' });
    const phone = '+14155550902';
    const bodies = Array.from({ length: 40 }, (_, index) => `part${String(index).padStart(2, '0')} ${'word '.repeat(1_999)}`.slice(0, 10_000));
    const responses = await Promise.all(bodies.map((body) => h.inbound({ from: phone, body })));
    expect(responses.map((response) => response.statusCode)).toEqual(bodies.map(() => 200));
    expect(await h.database.prisma.message.count({ where: { role: 'user', inboundStatus: 'pending' } })).toBe(40);

    await h.herald.start();
    const [reply] = await h.replies(1);
    const request = h.anthropic.requests[0]!;
    // The planner saw at most the cap (4,000 tokens ≈ 16,000 characters) of the 400,000 sent.
    const userText = JSON.stringify(request.body.messages);
    expect(userText.length).toBeLessThan(4_000 * 4 + 10_000);
    // Arrival order (the 40 raced each other): the first is read, the last is not.
    const arrived = await h.database.prisma.message.findMany({ where: { role: 'user' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(userText.includes(arrived[0]!.content.slice(0, 6))).toBe(true);
    expect(userText.includes(arrived[39]!.content.slice(0, 6))).toBe(false);
    expect(reply?.body).toMatch(/^That is a lot of text\.\n\n\(Your message was too long: I read only the first [\d,]+ of its 400,039 characters\./);
    expect(h.anthropic.requests).toHaveLength(1);
    // Nothing was lost: every message is stored and answered by that one turn.
    expect(await h.database.prisma.message.count({ where: { role: 'user', inboundStatus: 'handled' } })).toBe(40);
  });

  it('counts one sender once whatever the From format, and over the limit stores the text and answers it after the window instead of dropping it', async () => {
    harness = await HeraldHarness.start({ env: { WEBHOOK_RATE_LIMIT_PER_MINUTE: '2' } });
    const h = harness;
    h.anthropic.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    // Three spellings of one number: SMS, WhatsApp, and Twilio's own with spaces.
    const first = await h.inbound({ from: '+14155550903', body: 'one' });
    await h.repliesTo('+14155550903', 1);
    const second = await h.inbound({ from: 'whatsapp:+14155550903', body: 'two' });
    await h.repliesTo('whatsapp:+14155550903', 1);
    const third = await h.inbound({ from: 'whatsapp:+1 415 555 0903', body: 'three, over the limit' });
    // Never a 429 for a real delivery: Twilio would not retry it, and the text would be gone.
    expect([first.statusCode, second.statusCode, third.statusCode]).toEqual([200, 200, 200]);
    const stored = await h.database.prisma.message.findMany({ where: { role: 'user' }, orderBy: { createdAt: 'asc' } });
    expect(stored.map((message) => message.content)).toEqual(['one', 'two', 'three, over the limit']);
    expect(stored[2]?.inboundStatus).toBe('pending');
    expect(h.logs.lines.some((line) => line.msg === 'sender over the webhook rate limit; message stored, its turn deferred')).toBe(true);
    // Its turn waits for the window to end (a minute): the job is scheduled, not lost.
    const [job] = await h.database.prisma.$queryRaw<Array<{ startAfter: Date }>>`
      SELECT start_after AS "startAfter" FROM pgboss.job WHERE name = 'turn' AND state = 'created' AND start_after > now() + interval '30 seconds'`;
    expect(job?.startAfter.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(h.anthropic.requests).toHaveLength(2);
    // Another sender is not affected by this one's limit.
    h.anthropic.enqueue({ text: 'Hello other.' });
    expect((await h.inbound({ from: '+14155550904', body: 'hi' })).statusCode).toBe(200);
    await h.repliesTo('+14155550904', 1);
  });

  it('never replies from the webhook\'s To when no sender is configured for that channel: the part fails, recorded, nothing sent', async () => {
    harness = await HeraldHarness.start({ env: { TWILIO_WHATSAPP_FROM: '' } });
    const h = harness;
    h.anthropic.enqueue({ text: 'Hello on WhatsApp.' });
    expect((await h.inbound({ from: 'whatsapp:+14155550905', body: 'hi', to: 'whatsapp:+15005550009' })).statusCode).toBe(200);
    await waitUntil(async () => (await h.database.prisma.outboundMessage.count({ where: { status: 'failed' } })) === 1, 'the reply part to be marked failed');
    const [part] = await h.database.prisma.outboundMessage.findMany();
    expect(part).toMatchObject({ status: 'failed', errorMessage: 'no sender configured for whatsapp' });
    expect(h.twilio.requests).toHaveLength(0);
  });
});

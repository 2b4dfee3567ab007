import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedAnthropicRequest } from '../fakes/fake-anthropic-server.js';
import type { SentTwilioMessage } from '../fakes/fake-twilio-server.js';
import { HERALD_SMS_NUMBER, HERALD_WHATSAPP_NUMBER, HeraldHarness, messageSid } from '../helpers/herald-harness.js';

describe('users: one person per phone number', () => {
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

  const usersWithPhone = (phone: string) => harness.database.prisma.user.findMany({ where: { phone } });

  it('is the same user over SMS and WhatsApp, answered on the channel they wrote on, with one shared history', async () => {
    const phone = '+16465550111';
    harness.anthropic.enqueue({ text: 'Hi over SMS.' }, { text: 'Hi over WhatsApp.' });

    await harness.inbound({ from: phone, body: 'hello by sms' });
    const [sms] = await harness.repliesTo(phone, 1);
    expect(sms).toMatchObject({ from: HERALD_SMS_NUMBER, body: 'Hi over SMS.' });

    await harness.inbound({ from: `whatsapp:${phone}`, body: 'hello by whatsapp' });
    const [whatsapp] = await harness.repliesTo(`whatsapp:${phone}`, 1);
    expect(whatsapp).toMatchObject({ from: HERALD_WHATSAPP_NUMBER, body: 'Hi over WhatsApp.' });

    const users = await usersWithPhone(phone);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ phone, preferredChannel: 'whatsapp' });
    expect(users[0]?.lastWhatsappInboundAt).not.toBeNull();
    const messages = await harness.database.prisma.message.findMany({ where: { userId: users[0]!.id }, orderBy: { createdAt: 'asc' } });
    expect(messages.map((message) => [message.role, message.channel])).toEqual([
      ['user', 'sms'],
      ['assistant', 'sms'],
      ['user', 'whatsapp'],
      ['assistant', 'whatsapp'],
    ]);
    // The WhatsApp turn sees the SMS exchange: one conversation per person.
    const second = harness.anthropic.requests[1]!;
    expect((second.body.messages ?? []).map((message) => message.content)).toEqual(['hello by sms', 'Hi over SMS.', 'hello by whatsapp']);
  });

  it('normalises WhatsApp and spaced addresses to one E.164 number', async () => {
    harness.anthropic.setFallback({ text: 'ok' });
    await harness.inbound({ from: 'whatsapp:+1 646 555 0122', body: 'one' });
    await harness.repliesTo('whatsapp:+16465550122', 1);
    await harness.inbound({ from: '+16465550122', body: 'two' });
    await harness.repliesTo('+16465550122', 1);
    expect(await usersWithPhone('+16465550122')).toHaveLength(1);
    expect(await harness.database.prisma.user.count({ where: { phone: { contains: ' ' } } })).toBe(0);
  });

  it.each([
    ['+442079460958', 'Europe/London'],
    ['+972501234567', 'Asia/Jerusalem'],
    ['+12125550133', 'America/New_York'],
    // The area code decides in a country of several zones (Google libphonenumber's mapping).
    ['+14155550144', 'America/Los_Angeles'],
    ['+13035550144', 'America/Denver'],
  ])('gives a new user from %s the time zone %s, and shows it to the model', async (phone, timezone) => {
    harness.anthropic.enqueue({ text: 'Welcome!' });
    await harness.inbound({ from: phone, body: 'hi' });
    const [user] = await usersWithPhone(phone);
    expect(user?.timezone).toBe(timezone);

    await harness.repliesTo(phone, 1);
    const system = harness.anthropic.requests[0]!.systemText();
    expect(system).toContain(`<timezone>${timezone}</timezone>`);
    expect(system).toContain(`time zone ${timezone}`);
  });

  it('guesses DEFAULT_TIMEZONE for a number of several clocks (a US toll-free number): the harness sets America/New_York, not UTC', async () => {
    expect(harness.config.defaultTimezone).toBe('America/New_York');
    harness.anthropic.enqueue({ text: 'Welcome!' });
    await harness.inbound({ from: '+18885550144', body: 'hi' });
    await harness.repliesTo('+18885550144', 1);
    expect((await usersWithPhone('+18885550144'))[0]).toMatchObject({ timezone: 'America/New_York', timezoneSource: 'guess' });
  });

  it('creates exactly one user when a brand-new number sends five messages at once, and loses none of them', async () => {
    const phone = '+16465550155';
    harness.anthropic.setFallback({ text: 'Got all of that.' });
    const bodies = ['one', 'two', 'three', 'four', 'five'];

    const responses = await Promise.all(bodies.map((body) => harness.inbound({ from: phone, body, sid: messageSid() })));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);

    const users = await usersWithPhone(phone);
    expect(users).toHaveLength(1);
    const userId = users[0]!.id;
    const stored = await harness.database.prisma.message.findMany({ where: { userId, role: 'user' } });
    expect(stored.map((message) => message.content).sort()).toEqual([...bodies].sort());

    // A later message is answered after all five (one turn at a time per user, in arrival
    // order; a burst may be merged into one turn). Once the turn holding "six" has replied,
    // everything before it has been answered.
    await harness.inbound({ from: phone, body: 'six' });
    const isLast = (request: RecordedAnthropicRequest) => request.lastUserText().split('\n').includes('six');
    while (!harness.anthropic.requests.some(isLast)) await harness.anthropic.waitForRequests(harness.anthropic.requests.length + 1);
    const modelCalls = harness.anthropic.requests.length;
    const replies = await harness.repliesTo(phone, modelCalls);
    expect(replies.every((reply) => reply.body === 'Got all of that.')).toBe(true);

    const inbound = await harness.database.prisma.message.findMany({ where: { userId, role: 'user' } });
    expect(inbound).toHaveLength(6);
    expect(inbound.every((message) => message.inboundStatus === 'handled')).toBe(true);
    // Each message reached the model exactly once, and "six" came last.
    const shown = harness.anthropic.requests.flatMap((request) => request.lastUserText().split('\n'));
    expect([...shown].sort()).toEqual([...bodies, 'six'].sort());
    expect(shown.at(-1)).toBe('six');
    expect(await usersWithPhone(phone)).toHaveLength(1);
  });

  it("shows a new user's prompt the onboarding section (ask for a name, confirm the time zone), and not a known user's", async () => {
    harness.anthropic.enqueue({ text: 'Hi! What should I call you?' }, { text: 'Hi Noa!' });
    const newcomer = '+442079460959';
    await harness.inbound({ from: newcomer, body: 'hello' });
    await harness.repliesTo(newcomer, 1);

    const known = '+442079460960';
    await harness.database.prisma.user.create({ data: { phone: known, name: 'Noa', timezone: 'Europe/London' } });
    await harness.inbound({ from: known, body: 'hello' });
    await harness.repliesTo(known, 1);

    const [newcomerPrompt, knownPrompt] = harness.anthropic.requests.map((request) => request.systemText());
    expect(newcomerPrompt).toContain('<onboarding>');
    expect(newcomerPrompt).toMatch(/ask what to call them/);
    expect(newcomerPrompt).toMatch(/confirm their time zone \(Europe\/London/);
    expect(newcomerPrompt).toContain('<name>(unknown: ask for it)</name>');

    expect(knownPrompt).not.toContain('<onboarding>');
    expect(knownPrompt).not.toMatch(/what to call them/);
    expect(knownPrompt).toContain('<name>Noa</name>');
    expect(await usersWithPhone(known)).toHaveLength(1);
  });

  it('onboards once: after Herald has answered, a user whose name is still unknown is not asked again on every message', async () => {
    const phone = '+442079460961';
    // HELP (a keyword, no model) first: it must not use up the onboarding.
    await harness.inbound({ from: phone, body: 'HELP' });
    await harness.repliesTo(phone, 1);
    harness.anthropic.enqueue({ text: 'Hi! I am Herald. What should I call you? I have you on London time, right?' }, { text: 'Noted.' });
    await harness.inbound({ from: phone, body: 'hello' });
    await harness.repliesTo(phone, 2);
    await harness.inbound({ from: phone, body: 'what can you do?' });
    await harness.repliesTo(phone, 3);

    const [first, second] = harness.anthropic.requests.map((request) => request.systemText());
    expect(first).toContain('<onboarding>');
    expect(first).toContain('<name>(unknown: ask for it)</name>');
    expect(second).not.toContain('<onboarding>');
    expect(second).not.toContain('ask for it');
    expect((await usersWithPhone(phone))[0]?.name).toBeNull();
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { strangerReplies } from '../../src/access/access-replies.js';
import { DateTime } from 'luxon';
import { ManualClock } from '../../src/shared/clock.js';
import { HERALD_SMS_NUMBER, HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

const OWNER = '+12125550100';
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';
const twimlMessage = (text: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Message>${text.replace(/'/g, '&apos;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</Message></Response>`;

/**
 * ACCESS_MODE=invite, end to end: strangers cost nothing and leave nothing, owners run the
 * invite list by text without the model, JOIN codes work once, REVOKE shuts the door.
 */
describe('invite mode', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-11-23T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { ACCESS_MODE: 'invite', OWNER_PHONES: `${OWNER}, +44 7911 123456` } });
  });
  beforeEach(() => {
    harness.anthropic.reset();
    harness.twilio.reset();
  });
  afterAll(async () => {
    await harness.close();
  });

  const prisma = () => harness.database.prisma;
  /** Everything a sender could have left behind, by number. */
  async function traces(phone: string) {
    const user = await prisma().user.findUnique({ where: { phone } });
    const messages = await prisma().message.count({ where: { user: { phone } } });
    return { user, messages };
  }
  async function ownerSays(body: string): Promise<string> {
    return harness.exchange(OWNER, body);
  }

  it('answers a stranger once a day with the private notice, stores nothing of theirs, and never calls the model', async () => {
    const stranger = '+12125550901';
    const dedupeBefore = await prisma().inboundDedupe.count();
    const noticedBefore = new Set((await prisma().strangerNotice.findMany()).map((notice) => notice.phoneHash));
    const first = await harness.inbound({ from: stranger, body: 'hi, who is this? my password is hunter2' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toContain('text/xml');
    expect(first.body).toBe(twimlMessage(strangerReplies.private));

    const second = await harness.inbound({ from: `whatsapp:${stranger}`, body: 'hello??' });
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(EMPTY_TWIML);

    expect(await traces(stranger)).toEqual({ user: null, messages: 0 });
    expect(await prisma().inboundDedupe.count()).toBe(dedupeBefore);
    // What is kept: a keyed hash of the number and when it was told, nothing else.
    const notices = (await prisma().strangerNotice.findMany()).filter((notice) => !noticedBefore.has(notice.phoneHash));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.phoneHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(notices)).not.toContain('2125550901');
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(harness.twilio.messages).toHaveLength(0);
    expect(harness.logs.text()).not.toContain('hunter2');

    clock.advance(24 * 60 * 60 * 1000 + 1000);
    // STOP from a stranger: Twilio answers it; Herald adds nothing (and it does not use up the day's notice).
    expect((await harness.inbound({ from: stranger, body: 'STOP', extra: { OptOutType: 'STOP' } })).body).toBe(EMPTY_TWIML);
    const nextDay = await harness.inbound({ from: stranger, body: 'hello again' });
    expect(nextDay.body).toBe(twimlMessage(strangerReplies.private));
    expect(await traces(stranger)).toEqual({ user: null, messages: 0 });
  });

  it('serves owners (any listed owner, on SMS or WhatsApp) like any user', async () => {
    harness.anthropic.enqueue({ text: 'Hello, owner.' }, { text: 'Hi from WhatsApp.' });
    expect(await ownerSays('hello')).toBe('Hello, owner.');
    await harness.inbound({ from: 'whatsapp:+447911123456', body: 'hi' });
    const [reply] = await harness.repliesTo('whatsapp:+447911123456', 1);
    expect(reply?.body).toBe('Hi from WhatsApp.');
    expect(harness.anthropic.requests).toHaveLength(2);
  });

  it('INVITE +1… with a welcome allows the number and texts them the welcome, with no model call; they are then served', async () => {
    const friend = '+12125550911';
    const reply = await ownerSays('invite +1 212-555-0911 Hi Dana, this is Sam\'s assistant');
    expect(reply).toBe(`${friend} can use Herald now. I sent them your welcome.`);
    const [welcome] = await harness.repliesTo(friend, 1);
    expect(welcome).toMatchObject({ from: HERALD_SMS_NUMBER, body: "Hi Dana, this is Sam's assistant\n\nText anything to start. Reply STOP to opt out." });
    expect(harness.anthropic.requests).toHaveLength(0);
    expect(await prisma().accessGrant.findUnique({ where: { phone: friend } })).toMatchObject({ source: 'owner', grantedBy: OWNER, revokedAt: null });

    harness.anthropic.enqueue({ text: 'Hi Dana! What should I call you?' });
    expect(await harness.exchange(friend, 'hello!')).toBe('Hi Dana! What should I call you?');
    expect(harness.anthropic.requests).toHaveLength(1);

    // Inviting again says so; an owner cannot be invited; a bad number is explained.
    expect(await ownerSays(`INVITE ${friend}`)).toBe(`${friend} could already use Herald.`);
    expect(await ownerSays('INVITE +44 7911 123456')).toBe('+447911123456 is an owner and can always use Herald.');
    expect(await ownerSays('INVITE +999')).toBe('That is not a phone number in international form, such as +15551234567.');
    expect(harness.anthropic.requests).toHaveLength(1);
  });

  it('INVITE CODE makes a single-use code; JOIN with it lets a new number in; a used, expired or wrong code gets the same reply', async () => {
    const reply = await ownerSays('Invite code');
    const code = /Invite code: ([A-Z0-9]{4}-[A-Z0-9]{4}) \(works once, until .+\)\. They text JOIN \1 to this number\./.exec(reply)?.[1];
    expect(code, reply).toBeDefined();
    expect(await prisma().inviteCode.count({ where: { codeHash: { contains: code! } } })).toBe(0); // only its hash is kept

    const newcomer = '+12125550921';
    const joined = await harness.inbound({ from: newcomer, body: `join ${code!.toLowerCase().replace('-', ' ')}` });
    expect(joined.body).toBe(twimlMessage(strangerReplies.joined));
    expect(await prisma().accessGrant.findUnique({ where: { phone: newcomer } })).toMatchObject({ source: 'code' });
    // The JOIN itself is not kept as conversation.
    expect(await traces(newcomer)).toEqual({ user: null, messages: 0 });
    harness.anthropic.enqueue({ text: 'Welcome aboard.' });
    expect(await harness.exchange(newcomer, 'so what can you do')).toBe('Welcome aboard.');

    // Texting JOIN again once in: told so, not stored, nothing for the model.
    expect((await harness.inbound({ from: newcomer, body: `JOIN ${code}` })).body).toBe(twimlMessage(strangerReplies.alreadyIn));

    const failed = twimlMessage(strangerReplies.joinFailed);
    // Used.
    expect((await harness.inbound({ from: '+12125550922', body: `JOIN ${code}` })).body).toBe(failed);
    // Wrong.
    expect((await harness.inbound({ from: '+12125550923', body: 'JOIN ZZZZ-ZZZZ' })).body).toBe(failed);
    // Expired: a fresh code, 7 days and a minute later.
    const fresh = /Invite code: (\S+) /.exec(await ownerSays('INVITE CODE'))![1]!;
    clock.advance(7 * 24 * 60 * 60 * 1000 + 60_000);
    expect((await harness.inbound({ from: '+12125550924', body: `JOIN ${fresh}` })).body).toBe(failed);
    for (const phone of ['+12125550922', '+12125550923', '+12125550924']) {
      expect(await traces(phone)).toEqual({ user: null, messages: 0 });
      expect(await prisma().accessGrant.findUnique({ where: { phone } })).toBeNull();
    }
    expect(harness.anthropic.requests).toHaveLength(1);
  });

  it('lets exactly one of two numbers racing with the same code in', async () => {
    const code = /Invite code: (\S+) /.exec(await ownerSays('INVITE CODE'))![1]!;
    const racers = ['+12125550961', '+12125550962'];
    const answers = await Promise.all(racers.map((from) => harness.inbound({ from, body: `JOIN ${code}` })));
    expect(answers.map((answer) => answer.body).sort()).toEqual([twimlMessage(strangerReplies.joinFailed), twimlMessage(strangerReplies.joined)].sort());
    expect(await prisma().accessGrant.count({ where: { phone: { in: racers } } })).toBe(1);
  });

  it('stops a number guessing codes: after 5 failed JOINs in a day even a good code is refused, silently', async () => {
    const guesser = '+12125550931';
    const code = /Invite code: (\S+) /.exec(await ownerSays('INVITE CODE'))![1]!;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await harness.inbound({ from: guesser, body: `JOIN AAAA-AAA${attempt + 2}` })).body).toBe(attempt === 0 ? twimlMessage(strangerReplies.joinFailed) : EMPTY_TWIML);
    }
    const locked = await harness.inbound({ from: guesser, body: `JOIN ${code}` });
    expect(locked.statusCode).toBe(200);
    expect(locked.body).toBe(EMPTY_TWIML);
    expect(await prisma().accessGrant.findUnique({ where: { phone: guesser } })).toBeNull();
    // The code was not spent on the refused attempt: someone else can still use it.
    expect((await harness.inbound({ from: '+12125550932', body: `JOIN ${code}` })).body).toBe(twimlMessage(strangerReplies.joined));
  });

  it('answers a stranger at most once a day whatever they send: seven failed JOINs and a hello get one reply', async () => {
    const stranger = '+12125550981';
    const answers = [];
    for (let attempt = 0; attempt < 7; attempt += 1) answers.push((await harness.inbound({ from: stranger, body: `JOIN BBBB-BBB${attempt + 2}` })).body);
    answers.push((await harness.inbound({ from: stranger, body: 'hello?' })).body);
    expect(answers.filter((body) => body !== EMPTY_TWIML)).toEqual([twimlMessage(strangerReplies.joinFailed)]);
    // Told the private notice first, a failed JOIN the same day is not answered either.
    const other = '+12125550982';
    expect((await harness.inbound({ from: other, body: 'hi' })).body).toBe(twimlMessage(strangerReplies.private));
    expect((await harness.inbound({ from: other, body: 'JOIN CCCC-CCCC' })).body).toBe(EMPTY_TWIML);
    // A day later, one answer again (the clock is put back for the tests after this one).
    const today = clock.now();
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    try {
      expect((await harness.inbound({ from: stranger, body: 'hello again' })).body).toBe(twimlMessage(strangerReplies.private));
      expect((await harness.inbound({ from: stranger, body: 'JOIN DDDD-DDDD' })).body).toBe(EMPTY_TWIML);
    } finally {
      clock.set(today);
    }
    for (const phone of [stranger, other]) expect(await traces(phone)).toEqual({ user: null, messages: 0 });
    expect(harness.anthropic.requests).toHaveLength(0);
  });

  it('treats admin commands from a non-owner as ordinary messages for the model', async () => {
    const member = '+12125550941';
    expect(await ownerSays(`INVITE ${member}`)).toBe(`${member} can use Herald now.`);
    harness.anthropic.enqueue({ text: 'I cannot invite people, sorry.' }, { text: 'Here is what I know.' });
    expect(await harness.exchange(member, 'INVITE +12125550942')).toBe('I cannot invite people, sorry.');
    expect(await harness.exchange(member, 'USERS')).toBe('Here is what I know.');
    expect(harness.anthropic.requests.map((request) => request.lastUserText())).toEqual(['INVITE +12125550942', 'USERS']);
    expect(await prisma().accessGrant.findUnique({ where: { phone: '+12125550942' } })).toBeNull();

    // MY DATA shows them the invite list's entry for their number too.
    const link = /https:\/\/herald\.test\/p\/\S+/.exec(await harness.exchange(member, 'MY DATA'))![0];
    const page = await harness.herald.app.inject({ method: 'GET', url: new URL(link).pathname });
    expect(page.body).toContain('On the owners&#39; invite list');
  });

  it('REVOKE turns a user back into a stranger: their messages are not stored and get only the notice', async () => {
    const member = '+12125550951';
    await ownerSays(`INVITE ${member}`);
    harness.anthropic.enqueue({ text: 'Hi!' });
    await harness.exchange(member, 'hi');
    const storedBefore = (await traces(member)).messages;

    expect(await ownerSays(`REVOKE ${member}`)).toBe(`${member} can no longer use Herald, and their routines are stopped. Their other data stays until they delete it (or you run npm run accounts).`);
    const after = await harness.inbound({ from: member, body: 'are you there?' });
    expect(after.body).toBe(twimlMessage(strangerReplies.private));
    expect((await traces(member)).messages).toBe(storedBefore);
    expect(harness.anthropic.requests).toHaveLength(1);

    expect(await ownerSays(`REVOKE ${member}`)).toBe(`${member} was not on the invite list.`);
    expect(await ownerSays(`revoke ${OWNER}`)).toBe(`${OWNER} is an owner (OWNER_PHONES); remove them there.`);
  });

  it('sends a revoked number no reminders (recorded as not sent) and sends them again once it is re-invited', async () => {
    const member = '+12125550971';
    await ownerSays(`INVITE ${member}`);
    harness.anthropic.enqueue({ text: 'Hi!' });
    await harness.exchange(member, 'hi');
    const user = await prisma().user.findUniqueOrThrow({ where: { phone: member } });
    const remind = async (text: string) => {
      const at = DateTime.fromJSDate(clock.now(), { zone: user.timezone }).plus({ hours: 1 }).startOf('minute');
      const created = await harness.herald.reminders.create(user.id, user.timezone, { text, at: at.toFormat("yyyy-MM-dd'T'HH:mm") });
      if (!created.ok) throw new Error(created.error);
      clock.set(at.toJSDate());
      return harness.herald.reminderDelivery.deliver({ reminderId: created.value.id, dueAt: at.toUTC().toISO()! });
    };

    await ownerSays(`REVOKE ${member}`);
    expect(await remind('Stretch')).toEqual({ kind: 'handled', status: 'opted_out', duplicate: false });
    expect(harness.twilio.messages.filter((message) => message.to === member)).toHaveLength(1);

    await ownerSays(`INVITE ${member}`);
    expect(await remind('Stretch again')).toEqual({ kind: 'handled', status: 'sent', duplicate: false });
    const [, reminder] = await harness.repliesTo(member, 2);
    expect(reminder?.body).toBe('⏰ Reminder: Stretch again');
  });

  it('USERS lists who may use Herald, owners marked, most recently active first', async () => {
    // Numbers of this test's own: one active a week ago, one never, one revoked.
    const [lastWeek, never, revoked] = ['+12125550991', '+12125550992', '+12125550993'];
    const now = clock.now();
    for (const phone of [lastWeek, never, revoked]) {
      await prisma().accessGrant.create({ data: { phone, source: 'owner', grantedBy: OWNER, revokedAt: phone === revoked ? now : null } });
    }
    const dana = await createUser(harness, lastWeek);
    await prisma().message.create({ data: { userId: dana.id, role: 'user', content: 'hi', channel: 'sms', tokenCount: 1, createdAt: new Date(now.getTime() - 7 * 24 * 60 * 60 * 1000 - 60_000) } });

    const reply = await ownerSays('users');
    const lines = reply.split('\n');
    expect(lines[0]).toMatch(/^\d+ numbers may use Herald, most recently active first:$/);
    // The owner just wrote: first, and marked.
    expect(lines[1]).toBe(`${OWNER} (owner): just now`);
    expect(lines).toContain(`${lastWeek} Ana: 7 days ago`);
    expect(lines).toContain(`${never}: never`);
    expect(reply).not.toContain(revoked);
    expect(lines.indexOf(`${lastWeek} Ana: 7 days ago`)).toBeLessThan(lines.indexOf(`${never}: never`));
    expect(harness.anthropic.requests).toHaveLength(0);
  });
});

describe('open mode: new users per hour', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-11-23T15:00:00Z');

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, env: { NEW_USERS_PER_HOUR: '2' } });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('admits NEW_USERS_PER_HOUR newcomers an hour; the next is told once to try later, nothing stored; known users carry on', async () => {
    harness.anthropic.enqueue({ text: 'Hi one.' }, { text: 'Hi two.' }, { text: 'Still here.' }, { text: 'Welcome, three.' });
    expect(await harness.exchange('+12125550601', 'hi')).toBe('Hi one.');
    expect(await harness.exchange('+12125550602', 'hi')).toBe('Hi two.');

    const refused = await harness.inbound({ from: '+12125550603', body: 'hi' });
    expect(refused.statusCode).toBe(200);
    expect(refused.body).toBe(twimlMessage(strangerReplies.busy));
    expect((await harness.inbound({ from: '+12125550603', body: 'hello?' })).body).toBe(EMPTY_TWIML);
    expect(await harness.database.prisma.user.findUnique({ where: { phone: '+12125550603' } })).toBeNull();

    // Someone who is already a user is not a newcomer.
    expect(await harness.exchange('+12125550601', 'still there?')).toBe('Still here.');

    clock.advance(60 * 60 * 1000 + 1000);
    expect(await harness.exchange('+12125550603', 'hi again')).toBe('Welcome, three.');
    expect(harness.anthropic.requests).toHaveLength(4);
  });
});

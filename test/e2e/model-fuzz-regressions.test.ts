import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GOOGLE_CONTACTS_SCOPE } from '../../src/contacts/google-contacts.js';
import { ManualClock } from '../../src/shared/clock.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { singleStepPlan } from '../helpers/model-script.js';
import { textingUser } from '../helpers/texting-user.js';
import { createUser } from '../reminders/support.js';

/**
 * What the model-side fuzz (model-fuzz.test.ts) found, each pinned by its shrunk
 * counterexample: a connection changed without the user's YES, a reply the turn's commit
 * could not store, and a reply with no words (as the channel shows it).
 */
describe('model fuzz regressions', () => {
  const clock = new ManualClock('2030-03-04T13:00:00Z');
  const user = textingUser({ clock, startAt: '2030-03-04T13:00:00Z', firstPhone: 7300 });
  const connections = () => user.harness.database.prisma.connection.findMany({ where: { userId: user.userId }, select: { id: true } });
  const errors = () => user.harness.logs.lines.filter((line) => line.level >= 50).map((line) => line.msg);
  let errorsBefore = 0;
  beforeEach(() => {
    errorsBefore = errors().length;
  });

  it('disconnect_email asks YES first: a model that calls it unasked changes no connection', async () => {
    const { harness, userId } = user;
    // A mailbox on a port nothing listens on: asking about it needs no server.
    await harness.herald.calendar.connections.save(userId, { provider: 'imap', account: 'ana@127.0.0.1', label: 'Test Mail (ana@herald.test)', settings: { imapUrl: 'imap://127.0.0.1:9', smtpUrl: 'smtp://127.0.0.1:9', username: 'ana', address: 'ana@herald.test' }, secrets: { password: 'pw' } });
    harness.anthropic.enqueue(singleStepPlan('email-agent', 'Help the user'), { toolCalls: [{ name: 'disconnect_email', input: {} }] }, { toolCalls: [{ name: 'complete_step', input: { summary: 'Done.' } }] });
    const reply = await user.send('please');
    expect(reply).toContain('Disconnect your mailbox Test Mail (ana@herald.test)? Herald stops reading it; your mail stays where it is. Reply YES or NO.');
    expect(await connections()).toHaveLength(1);
    expect(await user.send('no')).not.toContain('Disconnected');
    expect(await connections()).toHaveLength(1);
  });

  it('disconnect_calendar asks YES first for a connected calendar, and says so when the built-in one is in use', async () => {
    const { harness, userId } = user;
    harness.anthropic.enqueue(singleStepPlan('calendar-agent', 'Help the user'), { toolCalls: [{ name: 'disconnect_calendar', input: {} }] }, (request) => {
      expect(request.allText()).toContain("No calendar is connected: Herald's built-in calendar is in use. Nothing was changed.");
      return { toolCalls: [{ name: 'complete_step', input: { summary: 'Nothing to disconnect.', reply: 'You use Herald\'s own calendar; there is nothing to disconnect.' } }] };
    });
    expect(await user.send('disconnect my calendar')).toBe("You use Herald's own calendar; there is nothing to disconnect.");
    harness.anthropic.rethrowScriptErrors();

    const saved = await harness.herald.calendar.connections.save(userId, { provider: 'caldav', account: 'ana@127.0.0.1', label: 'Down (ana)', settings: { serverUrl: 'http://127.0.0.1:9/', username: 'ana', calendarUrl: 'http://127.0.0.1:9/cal/', calendarName: 'Down' }, secrets: { password: 'pw' } });
    await harness.herald.calendar.calendars.useConnection(userId, saved.id);
    harness.anthropic.enqueue(singleStepPlan('calendar-agent', 'Help the user'), { toolCalls: [{ name: 'disconnect_calendar', input: {} }] }, { toolCalls: [{ name: 'complete_step', input: { summary: 'Done.' } }] });
    expect(await user.send('please')).toContain('Disconnect your calendar Down (ana)? Herald goes back to its built-in calendar; your events stay where they are. Reply YES or NO.');
    expect(await connections()).toEqual([{ id: saved.id }]);
    expect((await harness.herald.calendar.calendars.calendarOf(userId)).key).toBe(saved.id);
  });

  it('a step that "asks" a blank question asks nothing: the user gets a reply with words, and no question is kept', async () => {
    const { harness, userId } = user;
    // Counterexample: a contacts-agent step reports needsClarification with the question " ".
    harness.anthropic.enqueue(singleStepPlan('contacts-agent', 'Help the user'), { toolCalls: [{ name: 'complete_step', input: { summary: '!', needsClarification: true, question: ' ' } }] }, { text: 'I could not find out what you need.' });
    expect(await user.send('!')).toBe('I could not find out what you need.');
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId } })).toBe(0);
  });

  it('a question that is only Markdown ("#") is not an empty text: the user gets an apology, delivered', async () => {
    const { harness } = user;
    // Counterexample: a list-agent step asks "#", which SMS formatting turns into nothing, and Twilio refuses an empty body.
    harness.anthropic.enqueue(singleStepPlan('list-agent', 'Help the user'), { toolCalls: [{ name: 'complete_step', input: { summary: '!', needsClarification: true, question: '#' } }] });
    const reply = await user.send('hi');
    expect(reply.trim()).not.toBe('');
    await harness.idle(user.phone);
    expect(await harness.database.prisma.outboundMessage.count({ where: { userId: user.userId, status: 'failed' } })).toBe(0);
  });

  it('a model that answers only a NUL is not an empty text: the user gets an apology', async () => {
    user.harness.anthropic.enqueue({ text: '\u0000' });
    expect((await user.send('hi')).trim()).not.toBe('');
    expect(errors().slice(errorsBefore)).toEqual([]);
  });

  it('a reply with a NUL and half an emoji, long enough for a page, is answered once on the first try', async () => {
    const { harness, userId } = user;
    // Counterexample: the planner answers directly with 70,121 UTF-16 units of 🙂 (the last one cut in half).
    const text = `${'🙂'.repeat(35_060)}\u0000\uD83D`;
    harness.anthropic.enqueue({ text });
    const reply = await user.send('!');
    expect(reply).toContain('https://herald.test/p/');
    expect(harness.anthropic.requests).toHaveLength(1);
    await harness.idle(user.phone);
    const turns = await harness.database.prisma.turn.findMany({ where: { userId }, select: { status: true } });
    expect(turns).toEqual([{ status: 'succeeded' }]);
    const page = await harness.database.prisma.page.findFirstOrThrow({ where: { userId }, select: { spec: true } });
    expect(JSON.stringify(page.spec)).not.toMatch(/\\u0000|\\ud83d(?!\\ude42)/i);
    expect(errors().slice(errorsBefore)).toEqual([]);
  });
});

describe('model fuzz regressions, with Google set up', () => {
  let google: FakeGoogleServer;
  let harness: HeraldHarness;
  beforeAll(async () => {
    google = await FakeGoogleServer.start();
    harness = await HeraldHarness.start({ env: google.env() });
  });
  afterAll(async () => {
    await harness?.close();
    await google?.close();
  });

  it('disconnect_google_contacts waits for YES too (the fuzz reaches the other two disconnects; this one needs Google set up)', async () => {
    const phone = '+14155557390';
    const { id: userId } = await createUser(harness, phone);
    const email = 'ana@gmail.com';
    const scope = `openid email ${GOOGLE_CONTACTS_SCOPE}`;
    const connection = await harness.herald.calendar.connections.save(userId, { provider: 'google', account: email, label: `Google (${email})`, scopes: scope.split(' '), settings: {}, secrets: google.grant(email, scope) });
    // The account served only the contacts: giving them up deletes the connection.
    const scopes = async () => (await harness.database.prisma.connection.findUnique({ where: { id: connection.id } }))?.scopes ?? [];
    harness.anthropic.enqueue(singleStepPlan('contacts-agent', 'Help the user'), { toolCalls: [{ name: 'disconnect_google_contacts', input: {} }] }, { toolCalls: [{ name: 'complete_step', input: { summary: 'Done.' } }] });
    expect(await harness.exchange(phone, 'please')).toContain('Disconnect your Google Contacts? The contacts that came from Google are removed from Herald. Reply YES or NO.');
    expect(await scopes()).toContain(GOOGLE_CONTACTS_SCOPE);
    expect(await harness.exchange(phone, 'YES')).toBe('Disconnected your Google Contacts.');
    expect(await scopes()).not.toContain(GOOGLE_CONTACTS_SCOPE);
    harness.anthropic.rethrowScriptErrors();
  });
});

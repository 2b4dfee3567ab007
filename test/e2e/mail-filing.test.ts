import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { LOOPBACK_ALLOWED } from '../helpers/outbound.js';
import { CheckedScript, lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createUser } from '../reminders/support.js';
import { rawMail } from '../email/mail-fixtures.js';

/**
 * Filing mail and mailing contacts through the webhook, against a real Dovecot: "archive all
 * newsletters" is one YES over exactly the messages listed (one that arrives meanwhile stays
 * put), marking read needs no YES, and a contact deleted while a draft to them waits for YES
 * changes nothing about the draft the user saw.
 */
const script = new CheckedScript();
const checked = script.checked.bind(script);
const clock = new ManualClock('2026-11-23T15:00:00Z');
const complete = (reply: string): ScriptedAnthropicResponse => ({ toolCalls: [{ name: 'complete_step', input: { summary: reply, reply } }] });

describe('filing mail and mailing contacts through the webhook (a real Dovecot + SMTP)', () => {
  let harness: HeraldHarness;
  let dovecot: DovecotServer;
  let smtp: SmtpReceiver;
  let counter = 0;
  let phone: string;
  let userId: string;
  let mailbox: string;

  beforeAll(async () => {
    const users: Record<string, { password: string; address: string }> = { dana: { password: 'dana-pw', address: 'dana@herald.test' } };
    for (let index = 1; index <= 5; index += 1) users[`filer${index}`] = { password: `pw-${index}`, address: `filer${index}@herald.test` };
    dovecot = await DovecotServer.start(users);
    smtp = await SmtpReceiver.start(dovecot);
    harness = await HeraldHarness.start({ clock, env: { CALENDAR_TIMEOUT_MS: '3000', CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(6300 + counter)}`;
    mailbox = `filer${counter}`;
    userId = (await createUser(harness, phone, { timezone: 'America/New_York' })).id;
    const connected = await harness.herald.email.emails.connectImap(userId, { imapUrl: dovecot.url, smtpUrl: smtp.url, username: mailbox, password: `pw-${counter}`, address: `${mailbox}@herald.test`, service: 'Test Mail' });
    expect(connected.ok).toBe(true);
  });
  afterAll(async () => {
    await harness?.close();
    await smtp?.stop();
    await dovecot?.stop();
  });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    script.rethrow();
    return reply;
  }
  const deliver = async (subject: string, from = 'news@shop.example') =>
    dovecot.deliver(mailbox, { raw: await rawMail({ from, to: `${mailbox}@herald.test`, subject, text: `About ${subject}`, date: new Date('2026-11-22T10:00:00Z') }), internalDate: new Date('2026-11-22T10:00:00Z') });
  const subjectsIn = async (folder: string) => (await dovecot.messages(mailbox, folder)).map((message) => /^Subject: (.*)$/m.exec(message.raw)?.[1]?.trim()).sort();

  it('"archive all newsletters": one YES over exactly the listed messages, no model call on YES', async () => {
    await deliver('Weekly deals');
    await deliver('Flash sale');
    await deliver('Lunch?', 'dana@herald.test');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Archive all newsletters from news@shop.example'),
      { toolCalls: [{ name: 'search_emails', input: { from: 'news@shop.example' } }] },
      checked((request) => {
        const ids = [...toolResults(request)[0]!.content.matchAll(/id=(\d+:\d+)/g)].map((match) => match[1]!);
        expect(ids).toHaveLength(2);
        return { toolCalls: [{ name: 'file_emails', input: { ids, action: 'archive' } }] };
      }),
      checked((request) => {
        expect(JSON.parse(toolResults(request)[0]!.content)).toMatchObject({ effect: 'pending_confirmation' });
        return complete('I can archive those 2 newsletters.');
      }),
    );
    const question = await send('archive all newsletters from this week');
    expect(question).toContain('Archive these 2 emails?\n1) news@shop.example: Flash sale\n2) news@shop.example: Weekly deals');
    expect(await subjectsIn('INBOX')).toEqual(['Flash sale', 'Lunch?', 'Weekly deals']);
    // Another newsletter arrives before the YES: it was not listed, so it is not archived.
    await deliver('Late offer');
    const calls = harness.anthropic.requests.length;
    expect(await send('YES')).toBe('Archived 2 emails.');
    expect(harness.anthropic.requests).toHaveLength(calls);
    expect(await subjectsIn('Archive')).toEqual(['Flash sale', 'Weekly deals']);
    expect(await subjectsIn('INBOX')).toEqual(['Late offer', 'Lunch?']);
  });

  it('in Spanish: the filing question and its answer are Herald\'s own words in Spanish', async () => {
    await harness.database.prisma.user.update({ where: { id: userId }, data: { language: 'es' } });
    await deliver('Ofertas semanales');
    await deliver('Venta flash');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Archive all newsletters from news@shop.example'),
      { toolCalls: [{ name: 'search_emails', input: { from: 'news@shop.example' } }] },
      checked((request) => {
        const ids = [...toolResults(request)[0]!.content.matchAll(/id=(\d+:\d+)/g)].map((match) => match[1]!);
        return { toolCalls: [{ name: 'file_emails', input: { ids, action: 'archive' } }] };
      }),
      complete('Espera tu SÍ.'),
    );
    expect(await send('archiva todos los boletines de esta semana')).toContain('¿Archivo estos 2 correos?\n1) news@shop.example: Venta flash\n2) news@shop.example: Ofertas semanales');
    expect(await send('SÍ')).toBe('Archivé 2 correos.');
    expect(await subjectsIn('Archive')).toEqual(['Ofertas semanales', 'Venta flash']);
  });

  it('"mark those as read" needs no YES', async () => {
    await deliver('Read me');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Mark the email "Read me" as read'),
      { toolCalls: [{ name: 'search_emails', input: { subject: 'Read me' } }] },
      checked((request) => {
        const [id] = [...toolResults(request)[0]!.content.matchAll(/id=(\d+:\d+)/g)].map((match) => match[1]!);
        return { toolCalls: [{ name: 'file_emails', input: { ids: [id], action: 'mark_read' } }] };
      }),
      checked((request) => {
        expect(JSON.parse(toolResults(request)[0]!.content)).toEqual({ effect: 'updated', action: 'mark_read', filed: 1 });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Marked read', reply: 'Marked it as read.', updated: [{ description: 'Read me' }] } }] };
      }),
    );
    expect(await send('mark that as read')).toBe('Marked it as read.');
    expect((await dovecot.messages(mailbox)).find((message) => message.raw.includes('Subject: Read me'))!.flags).toContain('\\Seen');
  });

  it('a contact deleted while a draft to them waits for YES: YES sends exactly the draft that was shown', async () => {
    const saved = await harness.herald.contacts.contacts.create(userId, { name: 'Dana Levi', emails: ['dana@herald.test'] });
    if (!saved.ok) throw new Error(saved.error);
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Email Dana the photos link https://photos.example/abc'),
      { toolCalls: [{ name: 'find_contacts', input: { query: 'Dana' } }] },
      checked((request) => {
        expect(JSON.parse(toolResults(request)[0]!.content)).toMatchObject({ contacts: [{ name: 'Dana Levi', emails: ['dana@herald.test'] }] });
        return { toolCalls: [{ name: 'send_email', input: { to: ['dana@herald.test'], subject: 'Photos', body: 'Here they are: https://photos.example/abc' } }] };
      }),
      complete('The draft to Dana is waiting for your YES.'),
    );
    expect(await send('email Dana the photos link https://photos.example/abc')).toContain('Send this email to dana@herald.test?');
    await harness.herald.contacts.contacts.remove(userId, saved.value.contact.id);
    expect(await send('YES')).toBe('Sent your email to dana@herald.test ("Photos").');
    expect(smtp.received.filter((mail) => mail.recipients.includes('dana@herald.test')).some((mail) => mail.raw.includes('https://photos.example/abc'))).toBe(true);
  });
});

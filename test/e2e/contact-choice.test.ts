import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { LOOPBACK_ALLOWED } from '../helpers/outbound.js';
import { lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createUser } from '../reminders/support.js';

/**
 * "Email Dana" with two Danas in the contacts, through the webhook against a real Dovecot and
 * SMTP: Herald asks which one by number itself, "2" drafts to that Dana with no model call and
 * asks YES, YES sends to her alone. A name with no contact is asked about once, with the offer
 * to save the answer, and nothing is drafted.
 */
const clock = new ManualClock('2026-11-23T15:00:00Z');

describe('people by name in email: two matches are Herald\'s numbered choice (a real Dovecot + SMTP)', () => {
  let harness: HeraldHarness;
  let dovecot: DovecotServer;
  let smtp: SmtpReceiver;
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    const users: Record<string, { password: string; address: string }> = {};
    for (let index = 1; index <= 4; index += 1) users[`picker${index}`] = { password: `pw-${index}`, address: `picker${index}@herald.test` };
    dovecot = await DovecotServer.start(users);
    smtp = await SmtpReceiver.start(dovecot);
    harness = await HeraldHarness.start({ clock, env: { CALENDAR_TIMEOUT_MS: '3000', CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(6900 + counter)}`;
    userId = (await createUser(harness, phone, { timezone: 'America/New_York' })).id;
    const connected = await harness.herald.email.emails.connectImap(userId, { imapUrl: dovecot.url, smtpUrl: smtp.url, username: `picker${counter}`, password: `pw-${counter}`, address: `picker${counter}@herald.test`, service: 'Test Mail' });
    expect(connected.ok).toBe(true);
  });
  afterAll(async () => {
    await harness?.close();
    await smtp?.stop();
    await dovecot?.stop();
  });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    harness.anthropic.rethrowScriptErrors();
    return reply;
  }
  const save = async (name: string, email: string, relationship?: string) => {
    const saved = await harness.herald.contacts.contacts.create(userId, { name, emails: [email], ...(relationship ? { relationship } : {}) });
    if (!saved.ok) throw new Error(saved.error);
  };

  it('two Danas: Herald asks which one by number; "2" drafts to her with no model call; YES sends to her alone', async () => {
    await save('Dana Katz', 'dana@katz.example', 'sister');
    await save('Dana Levi', 'dana@levi.example');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Email Dana the photos link https://photos.example/abc'),
      { toolCalls: [{ name: 'send_email', input: { toNames: ['Dana'], subject: 'Photos', body: 'Here they are: https://photos.example/abc' } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result).toMatchObject({ isError: true, content: expect.stringContaining('Several contacts match "Dana"; nothing was drafted.') });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two Danas', needsClarification: true, question: 'Which Dana?' } }] };
      },
    );
    expect(await send('email Dana the photos link https://photos.example/abc')).toBe('Which one?\n1) Dana Katz (sister) dana@katz.example\n2) Dana Levi dana@levi.example\nReply with its number, or NO to leave it.');
    const calls = harness.anthropic.requests.length;
    expect(await send('2')).toBe('Send this email to dana@levi.example?\nSubject: Photos\n"Here they are: https://photos.example/abc"\nReply YES or NO.');
    expect(harness.anthropic.requests).toHaveLength(calls);
    expect(smtp.received.filter((mail) => mail.raw.includes('photos.example/abc'))).toHaveLength(0);
    expect(await send('YES')).toBe('Sent your email to dana@levi.example ("Photos").');
    expect(harness.anthropic.requests).toHaveLength(calls);
    const sent = smtp.received.filter((mail) => mail.raw.includes('https://photos.example/abc'));
    expect(sent.map((mail) => mail.recipients)).toEqual([['dana@levi.example']]);
  });

  it('"invite Dana to lunch Friday" with two Danas: the same numbered choice, "1" asks YES to inviting that Dana, with no model call', async () => {
    await save('Dana Katz', 'dana@katz.example', 'sister');
    await save('Dana Levi', 'dana@levi.example');
    harness.anthropic.enqueue(
      singleStepPlan('calendar-agent', 'Add lunch on 2026-11-27 at 13:00 and invite Dana'),
      { toolCalls: [{ name: 'create_calendar_event', input: { title: 'Lunch', start: '2026-11-27T13:00', inviteeNames: ['Dana'] } }] },
      (request) => {
        expect(toolResults(request)[0]).toMatchObject({ isError: true, content: expect.stringContaining('Several contacts match "Dana"; nothing was saved.') });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Two Danas', needsClarification: true, question: 'Which Dana?' } }] };
      },
    );
    expect(await send('invite Dana to lunch Friday at 1')).toBe('Which one?\n1) Dana Katz (sister) dana@katz.example\n2) Dana Levi dana@levi.example\nReply with its number, or NO to leave it.');
    const calls = harness.anthropic.requests.length;
    expect(await send('1')).toMatch(/^Add "Lunch" on .* and invite dana@katz\.example\? Reply YES or NO\.$/);
    expect(await harness.database.prisma.calendarEvent.count({ where: { userId } })).toBe(0);
    expect(await send('YES')).toMatch(/^Added "Lunch" \(.*\) and invited dana@katz\.example\.$/);
    expect(harness.anthropic.requests).toHaveLength(calls);
    expect(await harness.database.prisma.calendarEvent.count({ where: { userId } })).toBe(1);
  });

  it('one Dana: the draft names her and goes to her address', async () => {
    await save('Dana Katz', 'dana@katz.example');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Email Dana that lunch is at 1'),
      { toolCalls: [{ name: 'send_email', input: { toNames: ['dana'], subject: 'Lunch', body: 'Lunch is at 1.' } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Drafted', reply: 'The draft to Dana is waiting for your YES.' } }] },
    );
    expect(await send('email Dana that lunch is at 1')).toContain('Send this email to Dana Katz (dana@katz.example)?\nSubject: Lunch');
  });

  it('a name with no contact: nothing drafted, asked once with the offer to save; the answer is saved and the draft then finds her', async () => {
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Email Noa that lunch is at 1'),
      { toolCalls: [{ name: 'send_email', input: { toNames: ['Noa'], subject: 'Lunch', body: 'Lunch is at 1.' } }] },
      (request) => {
        const [result] = toolResults(request);
        expect(result!.isError).toBe(true);
        expect(result!.content).toContain('No contact called "Noa" has an email address, so nothing was drafted. Do not guess one: ask the user once for Noa\'s address');
        expect(result!.content).toContain('offer to save it as a contact');
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'No address for Noa', needsClarification: true, question: "I don't have Noa's email address. What is it? I can save it to your contacts too." } }] };
      },
    );
    expect(await send('email Noa that lunch is at 1')).toContain("I don't have Noa's email address. What is it? I can save it to your contacts too.");
    const questions = await harness.database.prisma.pendingQuestion.findMany({ where: { userId, status: 'pending' } });
    expect(questions.map((question) => question.kind)).toEqual(['clarification']);
    expect(await harness.database.prisma.pendingQuestion.count({ where: { userId, kind: 'confirmation' } })).toBe(0);

    // The answer resumes the plan: the address is saved as Noa (she said yes to the offer), and the draft now finds her by name.
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'The answer gives Noa\'s address and accepts saving it', goal: 'Save Noa, then email her', steps: [{ id: 'step_2', agent: 'contacts-agent', task: 'Save Noa with email noa@levi.example' }, { id: 'step_3', agent: 'email-agent', task: 'Email Noa that lunch is at 1', dependsOn: ['step_2'] }] } }] },
      { toolCalls: [{ name: 'save_contact', input: { name: 'Noa', emails: ['noa@levi.example'] } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Saved Noa', reply: 'Saved Noa.', created: [{ description: 'Noa' }] } }] },
      { toolCalls: [{ name: 'send_email', input: { toNames: ['Noa'], subject: 'Lunch', body: 'Lunch is at 1.' } }] },
      { toolCalls: [{ name: 'complete_step', input: { summary: 'Drafted', reply: 'The draft is waiting for your YES.' } }] },
    );
    const drafted = await send('noa@levi.example, and yes save her');
    expect(drafted).toContain('Send this email to Noa (noa@levi.example)?\nSubject: Lunch');
    expect(await harness.database.prisma.contact.findMany({ where: { userId }, select: { name: true, emails: true } })).toEqual([{ name: 'Noa', emails: ['noa@levi.example'] }]);
    expect(await send('YES')).toBe('Sent your email to noa@levi.example ("Lunch").');
    expect(smtp.received.filter((mail) => mail.recipients.includes('noa@levi.example'))).toHaveLength(1);
  });
});

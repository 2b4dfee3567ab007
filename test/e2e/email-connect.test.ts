import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import { HeraldHarness, PUBLIC_BASE_URL } from '../helpers/herald-harness.js';
import { LOOPBACK_ALLOWED } from '../helpers/outbound.js';
import { CheckedScript, lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createUser } from '../reminders/support.js';

/**
 * "Connect my email" by text: a link to the imap-email form, checked by logging in to the
 * real Dovecot and SMTP servers before anything is saved, the password sealed.
 */

const script = new CheckedScript();
const checked = script.checked.bind(script);
const plan = (task: string): ScriptedAnthropicResponse => singleStepPlan('email-agent', task);

function controls(html: string): Record<string, string> {
  const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  return { _csrf: value('_csrf'), _revision: value('_revision'), _section: value('_section') };
}

describe('connecting a mailbox (IMAP/SMTP form)', () => {
  let harness: HeraldHarness;
  let dovecot: DovecotServer;
  let smtp: SmtpReceiver;
  let phone: string;
  let userId: string;
  let counter = 0;

  beforeAll(async () => {
    dovecot = await DovecotServer.start({ ana: { password: 'right-password', address: 'ana@herald.test' } });
    smtp = await SmtpReceiver.start(dovecot);
    // The tests' Dovecot is on this machine: allowed as a self-hoster allows their own server.
    harness = await HeraldHarness.start({ env: { CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(6500 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness?.close();
    await smtp?.stop();
    await dovecot?.stop();
  });

  const path = (url: string) => url.slice(PUBLIC_BASE_URL.length);
  const get = (url: string) => harness.herald.app.inject({ method: 'GET', url: path(url) });
  const post = (url: string, form: Record<string, string>) =>
    harness.herald.app.inject({ method: 'POST', url: path(url), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
  const connections = () => harness.database.prisma.connection.findMany({ where: { userId } });
  const server = () => {
    const imapPort = String(dovecot.port);
    const smtpPort = smtp.url.split(':').pop()!;
    return { service: 'other', address: 'ana@herald.test', username: 'ana', imapHost: '127.0.0.1', imapPort, smtpHost: '127.0.0.1', smtpPort, security: 'starttls' };
  };

  it('"connect my email": the link by text; a wrong password or server is refused on the form, nothing saved; the right one is saved sealed and used', async () => {
    harness.anthropic.enqueue(
      plan('Give the user a link to connect their mailbox'),
      { toolCalls: [{ name: 'connect_email', input: {} }] },
      checked((request) => {
        const result = JSON.parse(toolResults(request)[0]!.content) as { link: string; expiresInMinutes: number };
        expect(result.expiresInMinutes).toBe(15);
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Link made', reply: `Connect your email here (works once, for 15 minutes):\n${result.link}` } }] };
      }),
    );
    const reply = await harness.exchange(phone, 'connect my email');
    script.rethrow();
    expect(harness.anthropic.requests).toHaveLength(3);
    const link = /https:\/\/herald\.test\/connect\/\S+/.exec(reply)![0];

    const page = await get(link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Connect your email</h1>');
    for (const preset of ['Gmail', 'Outlook', 'iCloud Mail', 'Fastmail', 'Yahoo Mail']) expect(page.body).toContain(preset);
    expect(page.body).toContain('type="password"');

    const wrong = await post(link, { ...controls(page.body), ...server(), password: 'wrong-password' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('refused this username and password');
    expect(wrong.body).not.toContain('wrong-password');
    expect(await connections()).toEqual([]);

    const missingServer = await post(link, { ...controls(wrong.body), ...server(), imapHost: '', password: 'right-password' });
    expect(missingServer.statusCode).toBe(422);
    expect(missingServer.body).toContain('Enter the incoming (IMAP) server');

    const badPort = await post(link, { ...controls(missingServer.body), ...server(), imapPort: '1', password: 'right-password' });
    expect(badPort.statusCode).toBe(422);
    expect(badPort.body).toContain('The incoming (IMAP) server could not be reached');
    expect(await connections()).toEqual([]);

    const right = await post(link, { ...controls(badPort.body), ...server(), password: 'right-password' });
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('Connected 127.0.0.1 (ana@herald.test).');
    const [saved] = await connections();
    expect(saved).toMatchObject({ provider: 'imap', account: 'ana@127.0.0.1', status: 'active', settings: { imapUrl: `imap://127.0.0.1:${dovecot.port}`, smtpUrl: smtp.url, username: 'ana', address: 'ana@herald.test' } });
    expect(saved!.secrets).not.toContain('right-password');
    expect(harness.herald.calendar.box.openJson(saved!.secrets)).toEqual({ password: 'right-password' });
    expect(harness.logs.text()).not.toContain('right-password');
    const mailbox = await harness.herald.email.emails.mailboxOf(userId);
    expect(mailbox.kind).toBe('ready');
    if (mailbox.kind === 'ready') await mailbox.provider.close();

    const used = await get(link);
    expect(used.statusCode).toBe(410);
  });
});

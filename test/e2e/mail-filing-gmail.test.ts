import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GMAIL_SCOPES } from '../../src/email/gmail-provider.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { lastToolResults as toolResults, singleStepPlan } from '../helpers/model-script.js';
import { RecordingServer } from '../helpers/recording-server.js';
import { createUser } from '../reminders/support.js';
import { rawMail } from '../email/mail-fixtures.js';

/**
 * Filing Gmail through the webhook, the official client against the strict fake Gmail API:
 * "archive all newsletters from this week" is one YES over exactly the messages listed (one
 * arriving meanwhile stays in the inbox), done as one batchModify with no model call; the
 * newsletters' unsubscribe links reach the model for the user and are never opened by Herald;
 * "mark that as read" needs no YES; deleting is a YES and goes to the trash.
 */
const clock = new ManualClock('2026-11-23T15:00:00Z');
const complete = (reply: string): ScriptedAnthropicResponse => ({ toolCalls: [{ name: 'complete_step', input: { summary: reply, reply } }] });

describe('filing Gmail through the webhook (the fake Gmail API)', () => {
  let harness: HeraldHarness;
  let google: FakeGoogleServer;
  let unsubscribeSite: RecordingServer;
  let counter = 0;
  let phone: string;
  let email: string;

  beforeAll(async () => {
    [google, unsubscribeSite] = await Promise.all([FakeGoogleServer.start(), RecordingServer.start()]);
    harness = await HeraldHarness.start({ clock, env: google.env() });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    counter += 1;
    phone = `+1415555${String(6800 + counter)}`;
    email = `gfiler${counter}@gmail.com`;
    const userId = (await createUser(harness, phone, { timezone: 'America/New_York' })).id;
    const scope = ['openid', 'email', ...GMAIL_SCOPES].join(' ');
    await harness.herald.calendar.connections.save(userId, { provider: 'google', account: email, label: `Google (${email})`, scopes: scope.split(' '), settings: {}, secrets: google.grant(email, scope) });
  });
  afterAll(async () => {
    await harness?.close();
    await google?.close();
    await unsubscribeSite?.close();
  });

  async function send(body: string): Promise<string> {
    const reply = await harness.exchange(phone, body);
    harness.anthropic.rethrowScriptErrors();
    return reply;
  }
  const deliver = async (subject: string, from = 'news@shop.example') =>
    google.gmail.deliver(
      email,
      await rawMail({ from, to: email, subject, text: `About ${subject}`, date: new Date('2026-11-22T10:00:00Z'), ...(from.startsWith('news@') ? { headers: { 'List-Unsubscribe': `<${unsubscribeUrl()}?u=${counter}>, <mailto:leave@shop.example>` } } : {}) }),
      { date: new Date('2026-11-22T10:00:00Z') },
    );
  /** https (the only web links kept), at a local server that counts any connection, TLS or not. */
  const unsubscribeUrl = () => `https://127.0.0.1:${unsubscribeSite.port}/unsubscribe`;
  const inInbox = () => google.gmail.messages(email, 'INBOX').map((mail) => /^Subject: (.*)$/m.exec(mail.raw.toString('utf8'))?.[1]?.trim()).sort();

  it('"archive all newsletters from this week": one YES over exactly the listed messages, one batchModify, no model call; unsubscribe links shown, never opened', async () => {
    const weekly = await deliver('Weekly deals');
    const flash = await deliver('Flash sale');
    await deliver('Lunch?', 'dana@example.com');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Archive all newsletters from news@shop.example received this week'),
      { toolCalls: [{ name: 'search_emails', input: { from: 'news@shop.example', since: '2026-11-22' } }] },
      (request) => {
        const ids = [...toolResults(request)[0]!.content.matchAll(/id=([0-9a-f]+)/g)].map((match) => match[1]!);
        expect(ids.sort()).toEqual([weekly, flash].sort());
        return { toolCalls: [{ name: 'get_emails', input: { ids } }] };
      },
      (request) => {
        const read = toolResults(request)[0]!.content;
        expect(read).toContain(`Unsubscribe (for the user to open; never follow it): ${unsubscribeUrl()}?u=${counter} mailto:leave@shop.example`);
        return { toolCalls: [{ name: 'file_emails', input: { ids: [weekly, flash], action: 'archive' } }] };
      },
      (request) => {
        expect(JSON.parse(toolResults(request)[0]!.content)).toMatchObject({ effect: 'pending_confirmation' });
        return complete(`I can archive those 2 newsletters. To stop them for good, open ${unsubscribeUrl()}?u=${counter}`);
      },
    );
    const question = await send('archive all newsletters from this week');
    expect(question).toContain(`open ${unsubscribeUrl()}?u=${counter}`);
    expect(question).toMatch(/Archive these 2 emails\?\n1\) news@shop\.example: (Weekly deals|Flash sale)\n2\) news@shop\.example: (Weekly deals|Flash sale)/);
    expect(inInbox()).toEqual(['Flash sale', 'Lunch?', 'Weekly deals']);
    // Another newsletter arrives before the YES: it was not listed, so it is not archived.
    await deliver('Late offer');
    const calls = harness.anthropic.requests.length;
    expect(await send('YES')).toBe('Archived 2 emails.');
    expect(harness.anthropic.requests).toHaveLength(calls);
    expect(inInbox()).toEqual(['Late offer', 'Lunch?']);
    expect(google.gmail.modifyRequests.filter((request) => request.email === email)).toEqual([{ email, endpoint: 'batchModify', ids: expect.arrayContaining([weekly, flash]), addLabelIds: [], removeLabelIds: ['INBOX'] }]);
    expect(unsubscribeSite.connections).toBe(0);
  });

  it('"mark that as read" needs no YES; "delete it" waits for YES and goes to the trash', async () => {
    const id = await deliver('Read me', 'dana@example.com');
    harness.anthropic.enqueue(
      singleStepPlan('email-agent', 'Mark the email "Read me" as read'),
      { toolCalls: [{ name: 'file_emails', input: { ids: [id], action: 'mark_read' } }] },
      (request) => {
        expect(JSON.parse(toolResults(request)[0]!.content)).toEqual({ effect: 'updated', action: 'mark_read', filed: 1 });
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Marked read', reply: 'Marked it as read.', updated: [{ description: 'Read me' }] } }] };
      },
    );
    expect(await send('mark that as read')).toBe('Marked it as read.');
    expect(google.gmail.labelsOfMessage(email, id)).toEqual(['INBOX']);

    harness.anthropic.enqueue(singleStepPlan('email-agent', 'Delete the email "Read me"'), { toolCalls: [{ name: 'file_emails', input: { ids: [id], action: 'delete' } }] }, complete('It is waiting for your YES.'));
    expect(await send('delete it')).toContain('Delete this email?\n1) dana@example.com: Read me');
    expect(google.gmail.labelsOfMessage(email, id)).toEqual(['INBOX']);
    expect(await send('YES')).toBe('Deleted 1 email.');
    expect(google.gmail.labelsOfMessage(email, id)).toEqual(['TRASH']);
  });
});

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import type { ScriptedAnthropicResponse } from '../fakes/fake-anthropic-server.js';
import { HeraldHarness, PUBLIC_BASE_URL } from '../helpers/herald-harness.js';
import { LOOPBACK_ALLOWED } from '../helpers/outbound.js';
import { singleStepPlan } from '../helpers/model-script.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { createUser } from '../reminders/support.js';
import { HOSTILE_CARD } from '../fixtures/hostile-vcard.js';

/**
 * The CalDAV connect page offers the same server's contacts (CardDAV), against a real
 * Radicale serving a calendar and an address book: ticked (the default), the contacts come in
 * with the calendar and the page says how many; unticked, none do; a server without an address
 * book says so; "disconnect my calendar" removes what came from its address book and keeps
 * what the user told Herald.
 */
const PASSWORD = 'card-password';

function card(uid: string, name: string, email: string): string {
  return ['BEGIN:VCARD', 'VERSION:3.0', `UID:${uid}`, `FN:${name}`, `N:${name.split(' ')[1]};${name.split(' ')[0]};;;`, `EMAIL:${email}`, 'END:VCARD', ''].join('\r\n');
}

/** The hidden fields a page's form posts back. */
function controls(html: string): Record<string, string> {
  const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  return { _csrf: value('_csrf'), _revision: value('_revision'), _section: value('_section') };
}

/** Makes `user`'s address book on Radicale (extended MKCOL, RFC 5689) and puts the cards in it. */
async function addressBook(radicale: RadicaleServer, user: string, cards: Record<string, string>): Promise<void> {
  const auth = `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}`;
  const book = `${radicale.url}/${user}/contacts/`;
  const made = await fetch(book, {
    method: 'MKCOL',
    headers: { authorization: auth, 'content-type': 'application/xml' },
    body: '<?xml version="1.0" encoding="utf-8"?><D:mkcol xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav"><D:set><D:prop><D:resourcetype><D:collection/><C:addressbook/></D:resourcetype><D:displayname>Contacts</D:displayname></D:prop></D:set></D:mkcol>',
  });
  if (made.status !== 201) throw new Error(`MKCOL answered ${made.status}`);
  for (const [name, body] of Object.entries(cards)) {
    const put = await fetch(`${book}${name}.vcf`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'text/vcard' }, body });
    if (put.status !== 201) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);
  }
}

describe('the CalDAV connect page offers the same server\'s contacts (a real Radicale)', () => {
  let harness: HeraldHarness;
  let radicale: RadicaleServer;
  const clock = new ManualClock(Date.now());
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    radicale = await RadicaleServer.start({ withcards: PASSWORD, nocards: PASSWORD, hostile: PASSWORD });
    await radicale.createCalendar('withcards', PASSWORD, 'personal', 'Personal');
    await radicale.createCalendar('nocards', PASSWORD, 'personal', 'Personal');
    await radicale.createCalendar('hostile', PASSWORD, 'personal', 'Personal');
    await addressBook(radicale, 'withcards', { dana: card('dana-1', 'Dana Katz', 'dana@katz.example'), bob: card('bob-1', 'Bob Stone', 'bob@stone.example') });
    await addressBook(radicale, 'hostile', { hostile: HOSTILE_CARD, dana: card('dana-1', 'Dana Katz', 'dana@katz.example') });
    harness = await HeraldHarness.start({ clock, env: { CONNECT_ALLOWED_HOSTS: LOOPBACK_ALLOWED } });
  });
  beforeEach(async () => {
    harness.anthropic.reset();
    harness.twilio.reset();
    clock.set(Date.now());
    counter += 1;
    phone = `+1415555${String(7300 + counter)}`;
    userId = (await createUser(harness, phone)).id;
  });
  afterAll(async () => {
    await harness?.close();
    await radicale?.stop();
  });

  const path = (url: string) => url.slice(PUBLIC_BASE_URL.length);
  const get = (url: string) => harness.herald.app.inject({ method: 'GET', url: path(url) });
  const post = (url: string, form: Record<string, string>) =>
    harness.herald.app.inject({ method: 'POST', url: path(url), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
  const contacts = () => harness.database.prisma.contact.findMany({ where: { userId }, orderBy: { name: 'asc' }, select: { name: true, source: true } });

  async function connectPage(): Promise<{ url: string; body: string }> {
    const issued = await harness.herald.calendar.links.issue(userId, 'caldav-calendar');
    const page = await get(issued.url);
    expect(page.statusCode).toBe(200);
    return { url: issued.url, body: page.body };
  }

  it('ticked (the default): the calendar and its server\'s contacts come in; "disconnect my calendar" removes those contacts, not the user\'s own', async () => {
    const { url, body } = await connectPage();
    expect(body).toMatch(/<input type="checkbox" id="[^"]+" name="contacts" [^>]*value="on" checked>Also bring in my contacts from this server, where it has them/);
    const done = await post(url, { ...controls(body), serverUrl: radicale.url, username: 'withcards', password: PASSWORD, contacts: 'on' });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Herald now uses your calendar &quot;Personal&quot;. Herald also brought in 2 contacts from its address book (2 new, 0 updated, 0 merged from cards sharing a UID, 0 values refused as too long or too many); disconnecting the calendar removes them.');
    expect(await contacts()).toEqual([
      { name: 'Bob Stone', source: 'carddav' },
      { name: 'Dana Katz', source: 'carddav' },
    ]);
    const mine = await harness.herald.contacts.contacts.create(userId, { name: 'Mom', phones: ['+14155550111'] });
    expect(mine.ok).toBe(true);

    const complete = (reply: string): ScriptedAnthropicResponse => ({ toolCalls: [{ name: 'complete_step', input: { summary: reply, reply } }] });
    harness.anthropic.enqueue(singleStepPlan('calendar-agent', "Disconnect the user's calendar"), { toolCalls: [{ name: 'disconnect_calendar', input: {} }] }, complete('It is disconnected once you confirm.'));
    expect(await harness.exchange(phone, 'disconnect my calendar')).toMatch(/^It is disconnected once you confirm\.\n\nDisconnect your calendar .+\? .*Reply YES or NO\.$/);
    harness.anthropic.rethrowScriptErrors();
    // Nothing goes before the YES; YES disconnects with no model call.
    expect(await contacts()).toHaveLength(3);
    expect(await harness.exchange(phone, 'YES')).toMatch(/^Disconnected your calendar .+: Herald's built-in calendar is in use again\.$/);
    expect(await contacts()).toEqual([{ name: 'Mom', source: 'user' }]);
  });

  it('unticked: the calendar only, no contacts', async () => {
    const { url, body } = await connectPage();
    const done = await post(url, { ...controls(body), serverUrl: radicale.url, username: 'withcards', password: PASSWORD, contacts: '' });
    expect(done.statusCode).toBe(200);
    expect(done.body).not.toContain('contacts');
    expect(await contacts()).toEqual([]);
  });

  it('a server account with no address book: connected, and the page says there were no contacts to bring in', async () => {
    const { url, body } = await connectPage();
    const done = await post(url, { ...controls(body), serverUrl: radicale.url, username: 'nocards', password: PASSWORD, contacts: 'on' });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('This server has no address book, so no contacts were brought in.');
    expect(await contacts()).toEqual([]);
  });
  it("the hostile card of issue 32 on the user's own server: the connect form answers at once, the address refused and said so, the rest brought in", async () => {
    const { url, body } = await connectPage();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const done = await post(url, { ...controls(body), serverUrl: radicale.url, username: 'hostile', password: PASSWORD, contacts: 'on' });
    delay.disable();
    console.log(`the hostile address book's connect form: longest event loop delay ${(delay.max / 1e6).toFixed(0)} ms`);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Herald also brought in 2 contacts from its address book (2 new, 0 updated, 0 merged from cards sharing a UID, 1 value refused as too long or too many); disconnecting the calendar removes them.');
    expect(await harness.database.prisma.contact.findMany({ where: { userId }, orderBy: { name: 'asc' }, select: { name: true, emails: true } })).toEqual([
      { name: 'Dana Katz', emails: ['dana@katz.example'] },
      { name: 'Hostile Card', emails: [] },
    ]);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OUTBOUND_REFUSED_MESSAGE, PLAIN_HTTP_REFUSED_MESSAGE } from '../../src/net/outbound-policy.js';
import { FakeGoogleServer } from '../fakes/fake-google-server.js';
import { CookieJar } from '../helpers/browser-cookies.js';
import { DovecotServer } from '../helpers/dovecot-server.js';
import { HeraldHarness, PUBLIC_BASE_URL } from '../helpers/herald-harness.js';
import { freePort } from '../helpers/herald-process.js';
import { mappedResolver } from '../helpers/outbound.js';
import { RadicaleServer } from '../helpers/radicale-server.js';
import { RecordingServer } from '../helpers/recording-server.js';
import { SmtpReceiver } from '../helpers/smtp-receiver.js';
import { createUser } from '../reminders/support.js';

/**
 * The connect forms, tried as an attacker with a phone and a browser would (issue 17),
 * through the real routes: no address typed into a form (or handed back by a server) that
 * is not on the public internet is ever contacted, every refusal reads the same whatever
 * listens there, passwords never go over plain http to a host the operator did not allow,
 * and a Google consent comes back only to the browser that started it.
 *
 * `inside` stands for a service on Herald's own network: an open port on this machine that
 * the operator did not allow. The tests' own servers (Radicale, Dovecot, SMTP, a redirector
 * and a fake CalDAV server) are allowed by port in CONNECT_ALLOWED_HOSTS, as a self-hoster
 * allows theirs.
 */

/** The hidden fields a page's form posts back. */
function controls(html: string): Record<string, string> {
  const value = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';
  return { _csrf: value('_csrf'), _revision: value('_revision'), _section: value('_section') };
}

/** The error shown under a form field, exactly as rendered. */
function fieldError(html: string, field: string): string | undefined {
  return new RegExp(`<p class="error" id="f1-${field}-error">([^<]*)</p>`).exec(html)?.[1];
}

const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A CalDAV server that puts the calendar it lists wherever `calendarHref` says. */
function fakeCaldav(calendarHref: () => string) {
  const multistatus = (responses: string) =>
    `<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">${responses}</d:multistatus>`;
  const ok = (href: string, props: string) => `<d:response><d:href>${href}</d:href><d:propstat><d:prop>${props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>`;
  return RecordingServer.start((request, response, body) => {
    const path = request.url ?? '/';
    const answer = (xml: string) => response.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' }).end(multistatus(xml));
    if (path.startsWith('/.well-known/')) return void response.writeHead(404).end();
    if (body.includes('current-user-principal')) return answer(ok(path, '<d:current-user-principal><d:href>/principals/ana/</d:href></d:current-user-principal>'));
    if (body.includes('calendar-home-set')) return answer(ok('/principals/ana/', '<c:calendar-home-set><d:href>/calendars/ana/</d:href></c:calendar-home-set>'));
    if (body.includes('supported-calendar-component-set')) {
      return answer(ok(calendarHref(), '<d:displayname>Personal</d:displayname><d:resourcetype><d:collection/><c:calendar/></d:resourcetype><c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set>'));
    }
    return answer(ok(path, '<d:resourcetype><d:collection/></d:resourcetype>'));
  });
}

describe('connect forms and the deployment’s own network', () => {
  let harness: HeraldHarness;
  let radicale: RadicaleServer;
  let dovecot: DovecotServer;
  let smtp: SmtpReceiver;
  let google: FakeGoogleServer;
  let inside: RecordingServer;
  let redirector: RecordingServer;
  let caldav: RecordingServer;
  let calendarHref = '/calendars/ana/personal/';
  let counter = 0;
  let phone: string;
  let userId: string;

  beforeAll(async () => {
    [radicale, dovecot, google, inside] = await Promise.all([
      RadicaleServer.start({ ana: 'right-password' }),
      DovecotServer.start({ ana: { password: 'right-password', address: 'ana@herald.test' } }),
      FakeGoogleServer.start(),
      RecordingServer.start((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('secret internal answer')),
    ]);
    smtp = await SmtpReceiver.start(dovecot);
    // Redirects to ?to=, with the status ?status= (307 by default).
    redirector = await RecordingServer.start((request, response) => {
      const query = new URL(request.url ?? '/', 'http://x').searchParams;
      response.writeHead(Number(query.get('status') ?? 307), { location: query.get('to') ?? '/' }).end();
    });
    caldav = await fakeCaldav(() => calendarHref);
    await radicale.createCalendar('ana', 'right-password', 'personal', 'Personal');
    const allowed = [new URL(radicale.url).port, dovecot.port, smtp.port, redirector.port, caldav.port].map((port) => `127.0.0.1:${port}`).join(',');
    harness = await HeraldHarness.start({
      env: { ...google.env(), CONNECT_ALLOWED_HOSTS: allowed },
      // Public-looking names: one leads into this machine, one is a real-looking public server.
      resolver: mappedResolver({ 'calendar.example.com': ['127.0.0.1'], 'mail.example.com': ['203.0.113.5', '127.0.0.1'], 'caldav.example.net': ['93.184.215.14'] }),
    });
  });
  beforeEach(async () => {
    counter += 1;
    phone = `+1415555${String(7100 + counter)}`;
    userId = (await createUser(harness, phone)).id;
    calendarHref = '/calendars/ana/personal/';
  });
  afterAll(async () => {
    await harness?.close();
    await smtp?.stop();
    await Promise.all([radicale?.stop(), dovecot?.stop(), google?.close(), inside?.close(), redirector?.close(), caldav?.close()]);
  });

  const path = (url: string) => url.slice(PUBLIC_BASE_URL.length);
  const get = (url: string, cookie?: string) => harness.herald.app.inject({ method: 'GET', url: path(url), headers: cookie ? { cookie } : {} });
  const post = (url: string, form: Record<string, string>) =>
    harness.herald.app.inject({ method: 'POST', url: path(url), headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() });
  const connections = () => harness.database.prisma.connection.findMany({ where: { userId } });

  /** Posts the CalDAV form once per address, each on a fresh link; the pages answered. */
  async function postCaldav(serverUrl: string) {
    const { url } = await harness.herald.calendar.links.issue(userId, 'caldav-calendar');
    const page = await get(url);
    return post(url, { ...controls(page.body), serverUrl, username: 'ana', password: 'right-password' });
  }

  /** Posts the IMAP form ("another provider") with these servers. */
  async function postImap(servers: { imapHost: string; imapPort: string; smtpHost?: string; smtpPort?: string }) {
    const { url } = await harness.herald.calendar.links.issue(userId, 'imap-email');
    const page = await get(url);
    return post(url, {
      ...controls(page.body),
      service: 'other',
      address: 'ana@herald.test',
      username: 'ana',
      password: 'right-password',
      smtpHost: '127.0.0.1',
      smtpPort: String(smtp.port),
      security: 'starttls',
      ...servers,
    });
  }

  it('CalDAV: loopback, localhost, [::1], 0.0.0.0, decimal, IPv4-mapped, metadata, private and a name leading here are refused with one message, nothing contacted', async () => {
    const before = inside.connections;
    const port = inside.port;
    const addresses = [
      `http://127.0.0.1:${port}/`,
      `https://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://0.0.0.0:${port}/`,
      'http://2130706433/',
      `http://2130706433:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `https://calendar.example.com:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      'https://172.16.5.4/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
    ];
    for (const serverUrl of addresses) {
      const response = await postCaldav(serverUrl);
      expect(response.statusCode, serverUrl).toBe(422);
      expect(fieldError(response.body, 'serverUrl'), serverUrl).toBe(escaped(OUTBOUND_REFUSED_MESSAGE));
      expect(response.body).not.toContain('secret internal answer');
    }
    expect(inside.connections).toBe(before);
    expect(await connections()).toEqual([]);
  });

  it('CalDAV: the refusal is byte for byte the same for an open and a closed port, and says nothing of either', async () => {
    const open = await postCaldav(`http://127.0.0.1:${inside.port}/`);
    const closed = await postCaldav(`http://127.0.0.1:${await freePort()}/`);
    expect(fieldError(open.body, 'serverUrl')).toBeDefined();
    expect(Buffer.from(fieldError(open.body, 'serverUrl')!)).toEqual(Buffer.from(fieldError(closed.body, 'serverUrl')!));
    // The whole pages differ only in the address typed back into the form and the form's own tokens.
    const normalise = (html: string) => html.replace(/127\.0\.0\.1:\d+/g, 'ADDRESS').replace(/value="[A-Za-z0-9_-]{20,}"/g, 'TOKEN').replace(/name="_revision" value="\d+"/g, 'REVISION');
    expect(normalise(open.body)).toBe(normalise(closed.body));
    for (const leak of ['connection refused', 'did not answer', 'HTTP 200', 'no such server']) expect(open.body + closed.body).not.toContain(leak);
  });

  it('CalDAV: a redirect into the machine is refused at that hop, and the password never reaches it', async () => {
    const before = inside.requests.length;
    for (const target of [`http://127.0.0.1:${inside.port}/`, `http://localhost:${inside.port}/`, `http://[::1]:${inside.port}/`, 'http://169.254.169.254/latest/meta-data/']) {
      const response = await postCaldav(`http://127.0.0.1:${redirector.port}/?to=${encodeURIComponent(target)}`);
      expect(response.statusCode, target).toBe(422);
      expect(fieldError(response.body, 'serverUrl'), target).toBe(escaped(OUTBOUND_REFUSED_MESSAGE));
    }
    expect(inside.requests.length).toBe(before);
    expect(redirector.requests.length).toBeGreaterThan(0);
    expect(await connections()).toEqual([]);
  });

  it('CalDAV: a server that lists its calendar on another host (this machine) is refused, and nothing is stored', async () => {
    calendarHref = `http://127.0.0.1:${inside.port}/calendars/ana/personal/`;
    const before = inside.connections;
    const response = await postCaldav(`http://127.0.0.1:${caldav.port}/`);
    expect(response.statusCode).toBe(422);
    expect(fieldError(response.body, 'serverUrl')).toBe(escaped(OUTBOUND_REFUSED_MESSAGE));
    expect(inside.connections).toBe(before);
    expect(await connections()).toEqual([]);
    // The same server listing its calendar on itself connects.
    calendarHref = '/calendars/ana/personal/';
    const fine = await postCaldav(`http://127.0.0.1:${caldav.port}/`);
    expect(fine.statusCode).toBe(200);
    expect((await connections()).map((connection) => connection.settings)).toEqual([expect.objectContaining({ calendarUrl: `http://127.0.0.1:${caldav.port}/calendars/ana/personal/` })]);
  });

  it('CalDAV: plain http:// to a host the operator did not allow is refused before anything is sent; an allowed host may use it', async () => {
    const response = await postCaldav('http://caldav.example.net/dav/');
    expect(response.statusCode).toBe(422);
    expect(fieldError(response.body, 'serverUrl')).toBe(escaped(PLAIN_HTTP_REFUSED_MESSAGE));
    expect(await connections()).toEqual([]);
    const allowed = await postCaldav(radicale.url);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain('Herald now uses your calendar &quot;Personal&quot;.');
  });

  it('a stored CalDAV connection is checked again at every use: once its address is no longer allowed, Herald refuses to call it', async () => {
    const connection = await harness.herald.calendar.connections.save(userId, {
      provider: 'caldav',
      account: 'ana@calendar.example.com',
      label: 'Sneaky (ana)',
      settings: { serverUrl: `https://calendar.example.com:${inside.port}/`, username: 'ana', calendarUrl: `http://127.0.0.1:${inside.port}/cal/`, calendarName: 'Personal' },
      secrets: { password: 'right-password' },
    });
    await harness.herald.calendar.calendars.useConnection(userId, connection.id);
    const { provider } = await harness.herald.calendar.calendars.calendarOf(userId);
    const before = inside.connections;
    await expect(provider.listEvents({ from: new Date(), to: new Date(Date.now() + 86_400_000) }, 'UTC')).rejects.toThrow(OUTBOUND_REFUSED_MESSAGE);
    expect(inside.connections).toBe(before);
  });

  it('IMAP/SMTP: loopback, localhost, [::1], 0.0.0.0, decimal, IPv4-mapped and a name leading here are refused with one message, nothing contacted', async () => {
    const before = inside.connections;
    for (const imapHost of ['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '2130706433', '[::ffff:127.0.0.1]', 'mail.example.com', '169.254.169.254', '10.0.0.1']) {
      const response = await postImap({ imapHost, imapPort: String(inside.port) });
      expect(response.statusCode, imapHost).toBe(422);
      expect(fieldError(response.body, 'imapHost'), imapHost).toBe(escaped(OUTBOUND_REFUSED_MESSAGE));
    }
    // An allowed IMAP server with the SMTP server inside: refused before either is contacted.
    const smtpInside = await postImap({ imapHost: '127.0.0.1', imapPort: String(dovecot.port), smtpHost: 'localhost', smtpPort: String(inside.port) });
    expect(smtpInside.statusCode).toBe(422);
    expect(fieldError(smtpInside.body, 'smtpHost')).toBe(escaped(OUTBOUND_REFUSED_MESSAGE));
    expect(inside.connections).toBe(before);
    expect(await connections()).toEqual([]);
  });

  it('IMAP: the refusal is byte for byte the same for an open and a closed port, and neither is contacted (so no timing tells them apart)', async () => {
    const before = inside.connections;
    const open = await postImap({ imapHost: '127.0.0.1', imapPort: String(inside.port) });
    const closed = await postImap({ imapHost: '127.0.0.1', imapPort: String(await freePort()) });
    expect(fieldError(open.body, 'imapHost')).toBe(escaped(OUTBOUND_REFUSED_MESSAGE));
    expect(Buffer.from(fieldError(open.body, 'imapHost')!)).toEqual(Buffer.from(fieldError(closed.body, 'imapHost')!));
    expect(inside.connections).toBe(before);
  });

  it('IMAP: the tests’ Dovecot, allowed by the operator, still connects through the form', async () => {
    const response = await postImap({ imapHost: '127.0.0.1', imapPort: String(dovecot.port) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Connected 127.0.0.1 (ana@herald.test).');
  });

  it('every connect page says whose Herald it connects to, masked', async () => {
    for (const purpose of ['caldav-calendar', 'imap-email', 'google-calendar']) {
      const { url } = await harness.herald.calendar.links.issue(userId, purpose);
      const page = await get(url);
      expect(page.body, purpose).toContain(`This connects an account to the Herald you text from <strong>+1 ••• ••• ${phone.slice(-4)}</strong>.`);
      expect(page.body).not.toContain(phone.slice(2));
    }
  });

  it('Google: a consent URL finished in another browser (no cookie) connects nothing, and that consent cannot be finished later', async () => {
    const exchangedBefore = google.tokenRequests.filter((request) => request.grantType === 'authorization_code').length;
    const { url } = await harness.herald.calendar.links.issue(userId, 'google-calendar');
    const page = await get(url);
    const started = await post(url, controls(page.body));
    expect(started.statusCode).toBe(303);
    const setCookie = String(started.headers['set-cookie']);
    expect(setCookie).toMatch(/^herald_consent_[0-9a-f]{32}=[A-Za-z0-9_-]{43}; Path=\/oauth\/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/);
    // The consent URL goes to someone else, who approves in their own browser.
    const approved = await fetch(started.headers.location as string, { redirect: 'manual' });
    const callback = approved.headers.get('location')!;
    const elsewhere = await get(callback);
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.body).toContain('Nothing was connected');
    expect(elsewhere.body).toContain('only connected in the browser where its link was opened');
    expect(google.tokenRequests.filter((request) => request.grantType === 'authorization_code')).toHaveLength(exchangedBefore);
    expect(await connections()).toEqual([]);
    // A wrong cookie is no better, and the first browser cannot finish that consent afterwards either.
    const cookieName = setCookie.split('=')[0]!;
    expect((await get(callback, `${cookieName}=${'x'.repeat(43)}`)).statusCode).toBe(404);
    expect((await get(callback, new CookieJar().take(started.headers).header(callback))).statusCode).toBe(404);
    expect(await connections()).toEqual([]);
    // The link itself still works, in the right browser.
    const again = await get(url);
    const restarted = await post(url, controls(again.body));
    const browser = new CookieJar().take(restarted.headers);
    const approvedAgain = await fetch(restarted.headers.location as string, { redirect: 'manual' });
    const done = await get(approvedAgain.headers.get('location')!, browser.header('/oauth/google/callback'));
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain(`It works for the Herald you text from +1 ••• ••• ${phone.slice(-4)}.`);
    expect(String(done.headers['set-cookie'])).toMatch(/Max-Age=0/);
    expect(await connections()).toHaveLength(1);
  });

  it('a connect form posted without its CSRF token, or with a near miss of it, is refused and nothing is stored', async () => {
    const { url } = await harness.herald.calendar.links.issue(userId, 'caldav-calendar');
    const page = await get(url);
    const { _csrf: csrf = '', ...rest } = controls(page.body);
    expect(csrf).toMatch(/^\S{20,}$/);
    const form = { ...rest, serverUrl: radicale.url, username: 'ana', password: 'right-password' };
    for (const attempt of [form, { ...form, _csrf: '' }, { ...form, _csrf: `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }]) {
      const refused = await post(url, attempt);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('Not accepted');
      expect(refused.body).toContain('This form could not be accepted. Open the link from Herald’s message again and try once more.');
    }
    expect(await connections()).toEqual([]);
    // The right token still works: the refusals spent nothing.
    const accepted = await post(url, { ...form, _csrf: csrf });
    expect(accepted.statusCode).toBe(200);
    expect(await connections()).toHaveLength(1);
  });

  it('an OAuth callback whose state is not one string, or names a link that is not an OAuth one, is refused as unknown', async () => {
    const { url } = await harness.herald.calendar.links.issue(userId, 'google-calendar');
    const page = await get(url);
    const started = await post(url, controls(page.body));
    const browser = new CookieJar().take(started.headers);
    const approved = await fetch(started.headers.location as string, { redirect: 'manual' });
    const callback = new URL(approved.headers.get('location')!);
    const state = callback.searchParams.get('state')!;
    const exchanges = () => google.tokenRequests.filter((request) => request.grantType === 'authorization_code').length;
    const exchangedBefore = exchanges();
    // The state given twice (an array once parsed) is no state.
    const doubled = new URL(callback);
    doubled.searchParams.append('state', state);
    expect((await get(doubled.toString(), browser.header('/oauth/google/callback'))).statusCode).toBe(404);
    expect(exchanges()).toBe(exchangedBefore);
    // A CalDAV link's own state (it has none): nothing to complete.
    const caldavLink = await harness.herald.calendar.links.issue(userId, 'caldav-calendar');
    const caldavState = new URL(caldavLink.url).pathname.split('/').pop()!;
    const stray = new URL(callback);
    stray.searchParams.set('state', caldavState);
    expect((await get(stray.toString(), browser.header('/oauth/google/callback'))).statusCode).toBe(404);
    // The consent itself is still good in its own browser.
    expect((await get(callback.toString(), browser.header('/oauth/google/callback'))).statusCode).toBe(200);
    expect(await connections()).toHaveLength(1);
  });

  it('Google: a wrong browser cookie is refused like a missing one', async () => {
    const { url } = await harness.herald.calendar.links.issue(userId, 'google-calendar');
    const page = await get(url);
    const started = await post(url, controls(page.body));
    const cookieName = String(started.headers['set-cookie']).split('=')[0]!;
    const approved = await fetch(started.headers.location as string, { redirect: 'manual' });
    const wrong = await get(approved.headers.get('location')!, `${cookieName}=${'A'.repeat(43)}`);
    expect(wrong.statusCode).toBe(403);
    expect(await connections()).toEqual([]);
  });
});

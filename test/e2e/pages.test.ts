import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PageInput } from '../../src/pages/page-spec.js';
import { ManualClock } from '../../src/shared/clock.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

/**
 * Pages over real HTTP (app.inject) on real Postgres: links, expiry, revocation, checklist
 * ticks and forms, and every way a request can be wrong. Pages are made through
 * PageService.create, exactly what render_page calls.
 */

const HOUR = 3_600_000;

describe('pages at /p/<token>', () => {
  let harness: HeraldHarness;
  const clock = new ManualClock('2026-01-28T12:00:00Z');
  let counter = 0;
  let userId: string;
  const tokens: string[] = [];

  beforeAll(async () => {
    harness = await HeraldHarness.start({ clock, start: false });
  });
  beforeEach(async () => {
    counter += 1;
    clock.set('2026-01-28T12:00:00Z');
    userId = (await createUser(harness, `+1415555${String(5100 + counter)}`)).id;
  });
  afterAll(async () => {
    await harness.close();
  });

  const pages = () => harness.herald.pages;
  const lists = () => harness.herald.lists;

  async function makePage(input: PageInput, owner = userId): Promise<{ token: string; link: string }> {
    const result = await pages().create(owner, 'Europe/London', input);
    if (!result.ok) throw new Error(result.error);
    const token = result.value.link.split('/p/')[1]!;
    tokens.push(token);
    return { token, link: result.value.link };
  }

  async function shoppingPage(owner = userId) {
    await lists().addItems(owner, 'shopping', ['milk', 'eggs']);
    return makePage({ title: 'Your shopping', sections: [{ kind: 'checklist', list: 'shopping' }] }, owner);
  }

  const get = (path: string) => harness.herald.app.inject({ method: 'GET', url: path });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    harness.herald.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(form).toString() });

  /** The hidden controls and toggle values of a rendered page, as a browser would submit them. */
  function controls(html: string): { csrf: string; revision: string; toggles: Record<string, string> } {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const revision = /name="_revision" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const toggles = Object.fromEntries([...html.matchAll(/name="_toggle" value="([^"]+)" aria-pressed="[a-z]+"><span>([^<]+)<\/span>/g)].map((match) => [match[2]!, match[1]!]));
    return { csrf, revision, toggles };
  }

  async function items(owner = userId) {
    const [list] = (await lists().lists(owner, 'shopping')).ok ? ((await lists().lists(owner, 'shopping')) as { ok: true; value: Array<{ items: Array<{ text: string; checked: boolean }> }> }).value : [];
    return Object.fromEntries((list?.items ?? []).map((item) => [item.text, item.checked]));
  }

  it('opens with a strict CSP, noindex, no caching and no referrer, showing the list as it is now', async () => {
    const { token, link } = await shoppingPage();
    expect(link).toBe(`https://herald.test/p/${token}`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await lists().checkItems(userId, 'shopping', ['eggs'], true);
    const response = await get(`/p/${token}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'none';/);
    expect(response.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.body).toContain('<h1>Your shopping</h1>');
    expect(response.body).toMatch(/aria-pressed="false"><span>milk<\/span>/);
    expect(response.body).toMatch(/aria-pressed="true"><span>eggs<\/span>/);
    expect(response.body).toContain('This link stops working Saturday 31 January, 12:00');
  });

  it('stores only a hash of the token: nothing in the database opens the page', async () => {
    const { token } = await shoppingPage();
    const row = await harness.database.prisma.page.findFirstOrThrow({ where: { userId } });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await get(`/p/${row.tokenHash}`)).statusCode).toBe(404);
  });

  it('malformed, unknown, revoked and another page\'s tokens all get the same 404 page, with nothing from any page', async () => {
    const { token } = await shoppingPage();
    const notFound = await get(`/p/${'A'.repeat(43)}`);
    expect(notFound.statusCode).toBe(404);
    expect(notFound.body).toContain('Page not found');
    expect(notFound.headers['content-security-policy']).toContain("script-src 'none'");
    for (const path of [`/p/${token.slice(0, 42)}`, `/p/${token}x`, `/p/${token.slice(0, 40)}%3C%3E!`, `/p/${'x'.repeat(99)}`, '/p/..%2F..%2Fetc']) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(404);
      expect(response.body, path).toBe(notFound.body);
    }
    // Beyond Fastify's parameter length the router answers 414 itself, before any lookup.
    expect((await get(`/p/${'x'.repeat(5000)}`)).statusCode).toBe(414);
    expect((await pages().remove(userId, {})).ok).toBe(true);
    const revoked = await get(`/p/${token}`);
    expect(revoked.statusCode).toBe(404);
    expect(revoked.body).toBe(notFound.body);
    expect(revoked.body).not.toContain('shopping');
  });

  it('an expired page says so plainly (404), and nothing else; it works until the last moment of PAGE_TTL_HOURS (72)', async () => {
    const { token } = await shoppingPage();
    clock.advance(72 * HOUR - 1000);
    expect((await get(`/p/${token}`)).statusCode).toBe(200);
    clock.advance(1000);
    const expired = await get(`/p/${token}`);
    expect(expired.statusCode).toBe(404);
    expect(expired.body).toContain('This link has expired.');
    expect(expired.body).not.toMatch(/shopping|milk/i);
    // Forms on an expired page are refused the same way.
    expect((await post(`/p/${token}`, { _csrf: 'x', _revision: '0', _toggle: 'y' })).statusCode).toBe(404);
  });

  it('ticking an item saves it through ListService and comes back to the list (303); unticking works the same way', async () => {
    const { token } = await shoppingPage();
    const page = controls((await get(`/p/${token}`)).body);
    const ticked = await post(`/p/${token}`, { _csrf: page.csrf, _revision: page.revision, _toggle: page.toggles.milk! });
    expect(ticked.statusCode).toBe(303);
    expect(ticked.headers.location).toBe(`/p/${token}#s0`);
    expect(await items()).toEqual({ milk: true, eggs: false });
    const after = (await get(`/p/${token}`)).body;
    expect(after).toMatch(/aria-pressed="true"><span>milk<\/span>/);
    // What the page shows now is exactly what list-agent sees.
    expect((await lists().lists(userId, 'shopping')).ok && (await lists().lists(userId, 'shopping'))).toMatchObject({ value: [{ items: [{ text: 'milk', checked: true }, { text: 'eggs', checked: false }] }] });
    const again = controls(after);
    expect((await post(`/p/${token}`, { _csrf: again.csrf, _revision: again.revision, _toggle: again.toggles.milk! })).statusCode).toBe(303);
    expect(await items()).toEqual({ milk: false, eggs: false });
  });

  it('refuses a tick with a wrong or missing CSRF token (403), changing nothing', async () => {
    const { token } = await shoppingPage();
    const page = controls((await get(`/p/${token}`)).body);
    const wrong = await post(`/p/${token}`, { _csrf: `${page.csrf.slice(0, -1)}x`, _revision: page.revision, _toggle: page.toggles.milk! });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.body).toContain('Not accepted');
    expect(wrong.body).toContain('This form could not be accepted. Open the page again from Herald’s message and try once more.');
    expect((await post(`/p/${token}`, { _revision: page.revision, _toggle: page.toggles.milk! })).statusCode).toBe(403);
    // Another page's CSRF token is as wrong as a made-up one.
    const other = await shoppingPage((await createUser(harness, `+1415555${String(5300 + counter)}`)).id);
    const otherControls = controls((await get(`/p/${other.token}`)).body);
    expect((await post(`/p/${token}`, { _csrf: otherControls.csrf, _revision: page.revision, _toggle: page.toggles.milk! })).statusCode).toBe(403);
    expect(await items()).toEqual({ milk: false, eggs: false });
  });

  it('refuses a replayed tick (409) even after the item changed back, and shows the page as it is now', async () => {
    const { token } = await shoppingPage();
    const page = controls((await get(`/p/${token}`)).body);
    const tick = { _csrf: page.csrf, _revision: page.revision, _toggle: page.toggles.milk! };
    expect((await post(`/p/${token}`, tick)).statusCode).toBe(303);
    await lists().checkItems(userId, 'shopping', ['milk'], false); // "uncheck milk" by text
    const replayed = await post(`/p/${token}`, tick);
    expect(replayed.statusCode).toBe(409);
    expect(replayed.body).toContain('This page changed since it was opened, so that was not saved.');
    expect(await items()).toEqual({ milk: false, eggs: false });
    // A missing or nonsensical revision is as stale as an old one.
    for (const revision of [undefined, 'abc', '-1', '1e3', '99999999999']) {
      const { _revision: _dropped, ...rest } = tick;
      expect((await post(`/p/${token}`, revision === undefined ? rest : { ...rest, _revision: revision })).statusCode, String(revision)).toBe(409);
    }
    // The page it shows carries the current revision: ticking from it works.
    const fresh = controls(replayed.body);
    expect(fresh.revision).toBe(String(Number(page.revision) + 1));
    expect((await post(`/p/${token}`, { _csrf: fresh.csrf, _revision: fresh.revision, _toggle: fresh.toggles.eggs! })).statusCode).toBe(303);
    expect(await items()).toEqual({ milk: false, eggs: true });
  });

  it('two copies of one tick racing: exactly one is saved', async () => {
    const { token } = await shoppingPage();
    const page = controls((await get(`/p/${token}`)).body);
    const tick = { _csrf: page.csrf, _revision: page.revision, _toggle: page.toggles.milk! };
    const statuses = (await Promise.all([post(`/p/${token}`, tick), post(`/p/${token}`, tick), post(`/p/${token}`, tick)])).map((response) => response.statusCode);
    expect(statuses.sort()).toEqual([303, 409, 409]);
  });

  it('never reaches another user\'s list: their item id on my page is a 404 and their list is untouched', async () => {
    const { token } = await shoppingPage();
    const bob = (await createUser(harness, `+1415555${String(5500 + counter)}`)).id;
    const bobs = await shoppingPage(bob);
    const bobControls = controls((await get(`/p/${bobs.token}`)).body);
    const mine = controls((await get(`/p/${token}`)).body);
    const response = await post(`/p/${token}`, { _csrf: mine.csrf, _revision: mine.revision, _toggle: bobControls.toggles.milk! });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('Page not found');
    expect(await items(bob)).toEqual({ milk: false, eggs: false });
    expect(await items()).toEqual({ milk: false, eggs: false });
    // A toggle that is not an item id at all is the same 404.
    for (const toggle of ['milk', `${'-'.repeat(36)}:1`, `${bobControls.toggles.milk!.slice(0, 36)}:2`]) {
      expect((await post(`/p/${token}`, { _csrf: mine.csrf, _revision: String(Number(mine.revision) + 1), _toggle: toggle })).statusCode, toggle).toBe(404);
    }
  });

  it('refuses a form posted from another site (Sec-Fetch-Site: cross-site)', async () => {
    const { token } = await shoppingPage();
    const page = controls((await get(`/p/${token}`)).body);
    const response = await post(`/p/${token}`, { _csrf: page.csrf, _revision: page.revision, _toggle: page.toggles.milk! }, { 'sec-fetch-site': 'cross-site' });
    expect(response.statusCode).toBe(403);
    expect(await items()).toEqual({ milk: false, eggs: false });
  });

  it('a form: server-side messages per field with what was typed kept, then saved through UserService; a stale copy is refused', async () => {
    const { token } = await makePage({ title: 'Settings', sections: [{ kind: 'form', form: 'profile' }] });
    const opened = (await get(`/p/${token}`)).body;
    expect(opened).toContain('value="Ana"');
    expect(opened).toContain('value="America/New_York"');
    const { csrf, revision } = controls(opened);

    const invalid = await post(`/p/${token}`, { _csrf: csrf, _revision: revision, _section: '0', name: '', timezone: 'Mars/Olympus' });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.body).toContain('<p class="error" role="alert">Please correct the fields marked below.</p>');
    expect(invalid.body).toContain('<p class="error" id="f0-name-error">Enter the name Herald should call you.</p>');
    expect(invalid.body).toContain('That is not a time zone Herald knows.');
    expect(invalid.body).toContain('value="Mars/Olympus"');
    expect(await harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({ name: 'Ana', timezone: 'America/New_York' });

    const saved = await post(`/p/${token}`, { _csrf: csrf, _revision: revision, _section: '0', name: 'Ana María', timezone: 'Europe/Berlin' });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('Saved. Herald will call you Ana María and use Europe/Berlin time.');
    expect(await harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({ name: 'Ana María', timezone: 'Europe/Berlin' });

    const stale = await post(`/p/${token}`, { _csrf: csrf, _revision: revision, _section: '0', name: 'Someone else', timezone: 'UTC' });
    expect(stale.statusCode).toBe(409);
    expect(await harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({ name: 'Ana María' });
    // A section that is not a form, or a body with neither control, is refused.
    const fresh = controls(stale.body);
    expect((await post(`/p/${token}`, { _csrf: fresh.csrf, _revision: fresh.revision, _section: '7' })).statusCode).toBe(404);
    expect((await post(`/p/${token}`, { _csrf: fresh.csrf, _revision: fresh.revision })).statusCode).toBe(400);
  });

  it('a page needs its lists to exist: a checklist of a missing list is an error for the model, and no page is stored', async () => {
    const result = await pages().create(userId, 'UTC', { title: 'Packing', sections: [{ kind: 'checklist', list: 'packing' }] });
    expect(result).toEqual({ ok: false, error: 'There is no "packing" list. Lists: none. No page was made.' });
    expect(await harness.database.prisma.page.count({ where: { userId } })).toBe(0);
  });

  it('a deleted list leaves its checklist saying so', async () => {
    const { token } = await shoppingPage();
    await lists().deleteList(userId, 'shopping');
    const response = await get(`/p/${token}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('This list no longer exists.');
  });

  it('delete_page semantics: the newest by default, by title words, or all', async () => {
    const first = await makePage({ title: 'Week of Feb 2', sections: [{ kind: 'text', markdown: 'a' }] });
    clock.advance(1000);
    const second = await makePage({ title: 'Flight comparison', sections: [{ kind: 'text', markdown: 'b' }] });
    clock.advance(1000);
    const third = await makePage({ title: 'Packing', sections: [{ kind: 'text', markdown: 'c' }] });
    expect(await pages().remove(userId, { title: 'week' })).toEqual({ ok: true, value: { effects: { created: 0, updated: 0, deleted: 1 }, deleted: ['Week of Feb 2'] } });
    expect((await get(`/p/${first.token}`)).statusCode).toBe(404);
    expect(await pages().remove(userId, {})).toMatchObject({ ok: true, value: { deleted: ['Packing'] } });
    expect((await get(`/p/${third.token}`)).statusCode).toBe(404);
    expect((await get(`/p/${second.token}`)).statusCode).toBe(200);
    expect(await pages().remove(userId, { title: 'hotel' })).toEqual({ ok: false, error: 'No page is titled like "hotel". Pages: Flight comparison. Nothing was deleted.' });
    expect(await pages().remove(userId, { all: true })).toMatchObject({ ok: true, value: { effects: { deleted: 1 } } });
    expect(await pages().remove(userId, {})).toEqual({ ok: false, error: 'The user has no pages. Nothing was deleted.' });
  });

  it('never logs a page token', async () => {
    // This test's own traffic: a page viewed, its form posted, another viewed twice (earlier tests add theirs).
    const { token, link } = await shoppingPage();
    const html = (await get(`/p/${token}`)).body;
    const { csrf, revision, toggles } = controls(html);
    await post(`/p/${token}`, { _csrf: csrf, _revision: revision, _toggle: toggles.milk ?? '' });
    const other = await makePage({ title: 'Notes', sections: [{ kind: 'text', markdown: 'hello' }] });
    await get(`/p/${other.token}`);
    await get(link.slice(link.indexOf('/p/')));
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const logs = harness.logs.text();
    for (const token of tokens) expect(logs).not.toContain(token);
    expect(logs).toContain('/p/[token]');
  });
});

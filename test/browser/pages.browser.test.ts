/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the browser, where these globals exist.
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageInput } from '../../src/pages/page-spec.js';
import { horizontalOverflow, launchBrowser, screenshot, VIEWPORTS, watch } from '../helpers/browser.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { createUser } from '../reminders/support.js';

/**
 * Pages in a real browser (Debian chromium through puppeteer-core): every section kind at
 * a phone's and a laptop's size, with the DOM checked (text present, nothing wider than
 * the screen, no console errors, which include CSP violations, and no request leaving
 * Herald), a checklist ticked and saved, a form corrected and saved, and an injection
 * attempt left inert. Screenshots go to test-artifacts/browser/.
 */

const long = 'Supercalifragilisticexpialidocious-and-a-very-long-unbroken-word-that-must-wrap-somewhere';

const kinds: Array<{ kind: string; input: PageInput; expect: string[] }> = [
  { kind: 'text', input: { title: 'Notes', sections: [{ kind: 'text', heading: 'Plan', markdown: `# Friday\n**Pack** the *car* and \`check\` the [forecast](https://weather.example/x).\n\n- tent\n- stove\n\n> ${long}` }] }, expect: ['Pack', 'forecast', 'stove'] },
  { kind: 'list', input: { title: 'Ideas', sections: [{ kind: 'list', heading: 'Dinner ideas', ordered: true, items: ['Risotto', 'Tacos', long] }] }, expect: ['Risotto', 'Tacos'] },
  { kind: 'checklist', input: { title: 'Shopping', sections: [{ kind: 'checklist', heading: 'Shopping', list: 'shopping' }] }, expect: ['milk', 'eggs', '0 of 3 done'] },
  {
    kind: 'table',
    input: {
      title: 'Flights',
      sections: [
        {
          kind: 'table',
          heading: 'Three flights',
          caption: 'London to New York, 2 Feb',
          columns: ['Flight', 'Departs', 'Arrives', 'Stops', 'Bags', 'Seat', 'Meal', 'Price'],
          rows: [
            ['BA 117', '08:25', '11:10', 'none', '1 × 23 kg', 'extra legroom available', 'included', '£612'],
            ['VS 3', '11:30', '14:20', 'none', '1 × 23 kg', 'standard', 'included', '£540'],
            ['AA 101', '09:55', '12:50', 'none', 'cabin only', long, 'for purchase', '£488'],
          ],
        },
      ],
    },
    expect: ['BA 117', '£488', 'London to New York, 2 Feb'],
  },
  {
    kind: 'agenda',
    input: {
      title: 'Your week',
      sections: [
        {
          kind: 'agenda',
          heading: 'This week',
          days: [
            { date: '2026-01-28', entries: [{ time: '09:00', end: '09:30', title: 'Standup', detail: 'Room 4' }, { time: '13:00', title: 'Lunch with Dana' }] },
            { date: '2026-01-29', entries: [] },
            { date: '2026-01-30', entries: [{ title: 'Holiday' }] },
          ],
        },
      ],
    },
    expect: ['Wednesday 28 January', 'Standup', 'Nothing planned.', 'All day'],
  },
  { kind: 'key-value', input: { title: 'Trip', sections: [{ kind: 'key-value', heading: 'Booking', pairs: [{ key: 'Reference', value: 'XJ42LP' }, { key: 'Hotel', value: long }] }] }, expect: ['Reference', 'XJ42LP'] },
  { kind: 'links', input: { title: 'Links', sections: [{ kind: 'links', heading: 'Useful', links: [{ label: 'Check in online', url: 'https://airline.example/checkin', description: 'Opens 24 hours before' }] }] }, expect: ['Check in online', 'Opens 24 hours before'] },
  { kind: 'form', input: { title: 'Settings', sections: [{ kind: 'form', form: 'profile' }] }, expect: ['Your settings', 'Your name', 'Time zone'] },
];

describe('pages in chromium', () => {
  let harness: HeraldHarness;
  let origin: string;
  let chromium: Awaited<ReturnType<typeof launchBrowser>>;
  let userId: string;

  beforeAll(async () => {
    [harness, chromium] = await Promise.all([HeraldHarness.start({ start: false }), launchBrowser()]);
    await harness.herald.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(harness.herald.app.server.address() as { port: number }).port}`;
    userId = (await createUser(harness, '+14155550131', { timezone: 'Europe/London' })).id;
    await harness.herald.lists.addItems(userId, 'shopping', ['milk', 'eggs', long]);
  });
  afterAll(async () => {
    await chromium?.close();
    await harness?.close();
  });

  async function pathFor(input: PageInput): Promise<string> {
    const made = await harness.herald.pages.create(userId, 'Europe/London', input);
    if (!made.ok) throw new Error(made.error);
    return new URL(made.value.link).pathname;
  }

  async function newTab(width: number, height: number): Promise<{ tab: Page; seen: ReturnType<typeof watch> }> {
    const tab = await chromium.browser.newPage();
    await tab.setViewport({ width, height });
    return { tab, seen: watch(tab) };
  }

  for (const { kind, input, expect: texts } of kinds) {
    it(`${kind}: readable at 390×844 and 1280×800, nothing wider than the screen, no errors, nothing loaded from elsewhere`, async () => {
      const path = await pathFor(input);
      for (const viewport of VIEWPORTS) {
        const { tab, seen } = await newTab(viewport.width, viewport.height);
        const response = await tab.goto(`${origin}${path}`, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);
        expect(await tab.$eval('h1', (heading) => heading.textContent)).toBe(input.title);
        const text = await tab.evaluate(() => document.body.innerText);
        for (const expected of texts) expect(text, `${kind} @${viewport.name}`).toContain(expected);
        expect(await horizontalOverflow(tab), `${kind} @${viewport.name} overflows`).toBe(0);
        await screenshot(tab, `page-${kind}-${viewport.width}x${viewport.height}`);
        expect(seen.errors, `${kind} @${viewport.name}`).toEqual([]);
        expect(seen.outside(origin)).toEqual([]);
        await tab.close();
      }
    });
  }

  it('a wide table scrolls inside its own box on a phone, not the page', async () => {
    const { tab } = await newTab(390, 844);
    await tab.goto(`${origin}${await pathFor(kinds.find((entry) => entry.kind === 'table')!.input)}`);
    const box = await tab.$eval('.scroll', (element) => ({ scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    expect(box.scrollWidth).toBeGreaterThan(box.clientWidth);
    expect(await horizontalOverflow(tab)).toBe(0);
    await tab.close();
  });

  it('ticking a checklist item saves it (through ListService) and the page shows it ticked', async () => {
    const { tab, seen } = await newTab(390, 844);
    await tab.goto(`${origin}${await pathFor({ title: 'Tick', sections: [{ kind: 'checklist', list: 'shopping' }] })}`);
    const milk = 'xpath/.//button[span[text()="milk"]]';
    expect(await tab.$eval(milk, (button) => button.getAttribute('aria-pressed'))).toBe('false');
    await Promise.all([tab.waitForNavigation(), tab.click(milk)]);
    expect(await tab.$eval(milk, (button) => button.getAttribute('aria-pressed'))).toBe('true');
    expect(await tab.evaluate(() => document.body.innerText)).toContain('1 of 3 done');
    const stored = await harness.database.prisma.listItem.findFirstOrThrow({ where: { text: 'milk', list: { userId } } });
    expect(stored.checked).toBe(true);
    await screenshot(tab, 'page-checklist-ticked-390x844');
    // And back.
    await Promise.all([tab.waitForNavigation(), tab.click(milk)]);
    expect(await tab.$eval(milk, (button) => button.getAttribute('aria-pressed'))).toBe('false');
    expect((await harness.database.prisma.listItem.findFirstOrThrow({ where: { id: stored.id } })).checked).toBe(false);
    expect(seen.errors).toEqual([]);
    await tab.close();
  });

  it('a form shows the server\'s messages next to the fields, then saves', async () => {
    const { tab, seen } = await newTab(390, 844);
    await tab.goto(`${origin}${await pathFor({ title: 'Settings', sections: [{ kind: 'form', form: 'profile' }] })}`);
    await tab.$eval('#f0-timezone', (input) => ((input as HTMLInputElement).value = ''));
    await tab.type('#f0-timezone', 'Atlantis/Lost');
    await Promise.all([tab.waitForNavigation(), tab.click('button[type=submit]')]);
    expect(await tab.$eval('#f0-timezone-error', (element) => element.textContent)).toContain('That is not a time zone Herald knows.');
    expect(await tab.$eval('#f0-timezone', (input) => input.getAttribute('aria-invalid'))).toBe('true');
    await screenshot(tab, 'page-form-errors-390x844');
    await tab.$eval('#f0-timezone', (input) => ((input as HTMLInputElement).value = ''));
    await tab.type('#f0-timezone', 'Asia/Tokyo');
    await Promise.all([tab.waitForNavigation(), tab.click('button[type=submit]')]);
    expect(await tab.$eval('.saved', (element) => element.textContent)).toContain('use Asia/Tokyo time');
    expect((await harness.database.prisma.user.findUniqueOrThrow({ where: { id: userId } })).timezone).toBe('Asia/Tokyo');
    // The refused submission is answered 422, which the browser reports; nothing else is.
    expect(seen.errors).toEqual(['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
    await tab.close();
  });

  it('script in every field stays text: nothing runs, no dialog, the CSP holds', async () => {
    const attack = '<script>window.__pwned=1;alert(1)</script><img src=x onerror="window.__pwned=2">';
    const { tab, seen } = await newTab(1280, 800);
    let dialogs = 0;
    tab.on('dialog', (dialog) => {
      dialogs += 1;
      void dialog.dismiss();
    });
    await tab.goto(
      `${origin}${await pathFor({
        title: attack.slice(0, 120),
        sections: [
          { kind: 'text', heading: attack.slice(0, 120), markdown: attack },
          { kind: 'list', items: [attack] },
          { kind: 'table', columns: [attack.slice(0, 80)], rows: [[attack]] },
          { kind: 'key-value', pairs: [{ key: attack.slice(0, 100), value: attack }] },
        ],
      })}`,
    );
    expect(await tab.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toBe(0);
    expect(await tab.$$('main script, main img')).toHaveLength(0);
    expect(await tab.evaluate(() => document.body.innerText)).toContain('<script>window.__pwned=1;alert(1)</script>');
    expect(seen.errors).toEqual([]);
    expect(seen.outside(origin)).toEqual([]);
    await tab.close();
  });

  it('dark mode follows the device', async () => {
    const { tab } = await newTab(390, 844);
    await tab.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await tab.goto(`${origin}${await pathFor(kinds.find((entry) => entry.kind === 'agenda')!.input)}`);
    const background = await tab.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(15, 18, 22)');
    await screenshot(tab, 'page-agenda-dark-390x844');
    await tab.close();
  });

  it('a dead link shows the plain not-found page', async () => {
    const { tab, seen } = await newTab(390, 844);
    const response = await tab.goto(`${origin}/p/${'Z'.repeat(43)}`);
    expect(response?.status()).toBe(404);
    expect(await tab.$eval('h1', (heading) => heading.textContent)).toBe('Page not found');
    // The 404 itself is the only console error a browser reports here.
    expect(seen.errors.filter((error) => !/404/.test(error))).toEqual([]);
    await tab.close();
  });
});

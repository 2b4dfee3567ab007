/// <reference lib="dom" />
// The callbacks passed to page.evaluate run in the browser, where these globals exist.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import type { Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger } from '../../src/logging/logger.js';
import { ConsoleTransport } from '../../src/outbox/console-transport.js';
import { randomIds } from '../../src/shared/ids.js';
import { horizontalOverflow, launchBrowser, screenshot, watch } from '../helpers/browser.js';
import { HeraldHarness } from '../helpers/herald-harness.js';
import { photo } from '../helpers/media-fixtures.js';
import { lastToolResults } from '../helpers/model-script.js';
import { freePort } from '../helpers/herald-process.js';

/**
 * The dev phone end to end in chromium: a local Herald (no Twilio) listening for real,
 * the phone page typed into like a person would, replies and a reminder arriving over
 * server-sent events, and a page link opened by tapping it.
 */

const PHONE = '+14155550123';

describe('/dev/phone in chromium', () => {
  let harness: HeraldHarness;
  let origin: string;
  let chromium: Awaited<ReturnType<typeof launchBrowser>>;
  let tab: Page;
  let seen: ReturnType<typeof watch>;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    [harness, chromium] = await Promise.all([
      HeraldHarness.start({ env: { TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', PUBLIC_BASE_URL: origin }, transport: new ConsoleTransport(createSilentLogger(), randomIds, () => {}) }),
      launchBrowser(),
    ]);
    await harness.herald.app.listen({ host: '127.0.0.1', port });
    tab = await chromium.browser.newPage();
    await tab.setViewport({ width: 390, height: 844 });
    seen = watch(tab);
    await tab.goto(`${origin}/dev/phone`);
    await tab.waitForSelector('#composer[data-ready="true"]');
  });
  afterAll(async () => {
    await chromium?.close();
    await harness?.close();
  });

  /** Types a message and presses Enter, as a person would. */
  async function text(message: string): Promise<void> {
    await tab.type('#message', message);
    await tab.keyboard.press('Enter');
  }

  /** How many messages from Herald the phone shows now: each test counts from there. */
  const shown = () => tab.$$eval('#messages li.in', (items) => items.length);

  /** Waits (as long as the test lets it: no timeout of its own) for the n-th message from Herald and returns its text. */
  async function herald(count: number): Promise<string> {
    await tab.waitForFunction((wanted) => document.querySelectorAll('#messages li.in').length >= wanted, { timeout: 0 }, count);
    return tab.$$eval('#messages li.in', (items, index) => items[index]!.textContent ?? '', count - 1);
  }

  /** The phone's user, as its first message would have made it (+1 spans several zones: DEFAULT_TIMEZONE). */
  // A user whose zone is settled: replies that set a time do not add which zone it is in (src/timezones).
  const phoneUser = () =>
    harness.database.prisma.user.upsert({
      where: { phone: PHONE },
      create: { phone: PHONE, timezone: harness.config.defaultTimezone, timezoneSource: 'user', updatedAt: new Date() },
      update: { timezoneSource: 'user' },
    });

  // Whatever a test did in the browser, it logged no error and loaded nothing from elsewhere.
  afterEach(() => {
    const [errors, outside] = [[...seen.errors], seen.outside(origin)];
    seen.errors.length = 0;
    seen.requests.length = 0;
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('opens as a phone, texting as the default number', async () => {
    expect(await tab.$eval('#from', (input) => (input as HTMLInputElement).value)).toBe(PHONE);
    expect(await tab.$eval('#status', (status) => status.textContent)).toBe("Connected: Herald's replies appear here.");
    expect(await horizontalOverflow(tab)).toBe(0);
  });

  it('type "hi", see the reply', async () => {
    const before = await shown();
    harness.anthropic.enqueue((request) => ({ text: `Hi! You said "${request.lastUserText()}". What can I do for you?` }));
    await text('hi');
    expect(await herald(before + 1)).toBe('Hi! You said "hi". What can I do for you?');
    expect(await tab.$$eval('#messages li.out', (items) => items.at(-1)?.textContent)).toBe('hi');
    await screenshot(tab, 'dev-phone-hi-390x844');
  });

  it('a reminder for 5 seconds ahead arrives on the phone when it fires', async () => {
    const { timezone } = await phoneUser();
    const before = await shown();
    harness.anthropic.enqueue(
      (request) => {
        const dueLocal = DateTime.now().setZone(timezone).plus({ seconds: 5 }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
        expect(request.lastUserText()).toContain('remind me');
        return { toolCalls: [{ name: 'create_plan', input: { analysis: 'reminder', goal: 'Remind the user to stretch', steps: [{ id: 'step_1', agent: 'scheduler-agent', task: `Create a reminder "Stretch" at ${dueLocal}` }] } }] };
      },
      (request) => {
        const at = /at (\S+)$/.exec(request.lastUserText().split('\n').find((line) => line.includes('Create a reminder')) ?? '')?.[1] ?? '';
        return {
          toolCalls: [
            { name: 'create_scheduled_job', input: { text: 'Stretch', at } },
            { name: 'complete_step', input: { summary: 'Reminder set', reply: "OK, I'll remind you to stretch in 5 seconds.", created: [{ description: 'Stretch' }] } },
          ],
        };
      },
    );
    const sent = Date.now();
    await text('remind me to stretch in 5 seconds');
    const confirmation = await herald(before + 1);
    expect(confirmation).toBe("OK, I'll remind you to stretch in 5 seconds.");
    expect(await herald(before + 2)).toBe('⏰ Reminder: Stretch');
    expect(Date.now() - sent).toBeGreaterThanOrEqual(4000);
    await screenshot(tab, 'dev-phone-reminder-390x844');
  });

  it('a page link in a reply opens the page on tap, and ticking there works', async () => {
    const user = await phoneUser();
    const before = await shown();
    await harness.herald.lists.addItems(user.id, 'shopping', ['milk', 'eggs']);
    harness.anthropic.enqueue(
      { toolCalls: [{ name: 'create_plan', input: { analysis: 'page', goal: 'Show the shopping list', steps: [{ id: 'step_1', agent: 'ui-agent', task: 'A page with the shopping list as a checklist' }] } }] },
      { toolCalls: [{ name: 'render_page', input: { title: 'Shopping', sections: [{ kind: 'checklist', list: 'shopping' }] } }] },
      (request) => {
        const { link } = JSON.parse(lastToolResults(request)[0]!.content) as { link: string };
        return { toolCalls: [{ name: 'complete_step', input: { summary: 'Page made', reply: `Your shopping list:\n${link}`, created: [{ description: 'page' }] } }] };
      },
    );
    await text('show my shopping list');
    expect(await herald(before + 1)).toMatch(new RegExp(`^Your shopping list:\\n${origin.replace(/[.]/g, '\\.')}/p/[A-Za-z0-9_-]{43}$`));
    const opened = new Promise<Page>((resolve) => chromium.browser.once('targetcreated', (target) => void target.page().then((page) => resolve(page!))));
    await tab.click('#messages li.in:last-child a');
    const pageTab = await opened;
    await pageTab.setViewport({ width: 390, height: 844 });
    const pageSeen = watch(pageTab);
    await pageTab.waitForSelector('h1');
    expect(await pageTab.$eval('h1', (heading) => heading.textContent)).toBe('Shopping');
    const milk = 'xpath/.//button[span[text()="milk"]]';
    await Promise.all([pageTab.waitForNavigation(), pageTab.click(milk)]);
    expect(await pageTab.$eval(milk, (button) => button.getAttribute('aria-pressed'))).toBe('true');
    expect((await harness.database.prisma.listItem.findFirstOrThrow({ where: { text: 'milk', list: { userId: user.id } } })).checked).toBe(true);
    await screenshot(pageTab, 'dev-phone-opened-page-390x844');
    expect(pageSeen.errors).toEqual([]);
    expect(pageSeen.outside(origin)).toEqual([]);
    await pageTab.close();
  });

  it('attach a photo, add a caption, send: Herald sees the photo', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'herald-phone-'));
    const file = join(directory, 'menu.jpg');
    await writeFile(file, await photo(1600, 1200));
    try {
      harness.anthropic.enqueue((request) => ({ text: `I can see ${request.mediaBlocks().length} photo of a menu.` }));
      const before = await shown();
      const picker = await tab.$('input#file');
      await picker!.uploadFile(file);
      expect(await tab.$$eval('#attachments li', (items) => items.map((item) => item.textContent))).toEqual(['menu.jpg']);
      await text("what's good here?");
      expect(await herald(before + 1)).toBe('I can see 1 photo of a menu.');
      expect(await tab.$$eval('#messages li.out', (items) => items.at(-1)!.textContent)).toBe("what's good here?\n[menu.jpg]");
      expect(await tab.$$eval('#attachments li', (items) => items.length)).toBe(0);
      await screenshot(tab, 'dev-phone-photo-390x844');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

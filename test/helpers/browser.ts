import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/**
 * Real-browser tests drive Debian's chromium with puppeteer-core (which downloads no
 * browser). `.ci/run` installs chromium when it is missing; elsewhere install it with
 * `apt-get install chromium` or point HERALD_CHROMIUM at another Chromium binary.
 */
const CHROMIUM_PATH = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';

/** Where screenshots go for a reviewer to look at (git-ignored). */
const ARTIFACTS_DIRECTORY = path.resolve('test-artifacts/browser');

/** The two viewports every page is checked at: a phone and a laptop. */
export const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/** A headless chromium with a fresh profile, deleted on close. */
export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install it (apt-get install -y --no-install-recommends chromium; .ci/run does) or set HERALD_CHROMIUM`);
  }
  const profile = await mkdtemp(path.join(tmpdir(), 'herald-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  await mkdir(ARTIFACTS_DIRECTORY, { recursive: true });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** What a tab saw: console errors (CSP violations among them), uncaught errors, every request. */
export interface TabWatch {
  errors: string[];
  requests: string[];
  /** Requests to anywhere but `origin` (data: URLs are part of the document, not requests out). */
  outside(origin: string): string[];
}

/** Starts recording a tab's console errors and requests. */
export function watch(page: Page): TabWatch {
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('request', (request) => requests.push(request.url()));
  return {
    errors,
    requests,
    outside: (origin) => requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin),
  };
}

/** How far the document is wider than the viewport, in CSS pixels (0 when it fits). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth);
}

/** Saves a full-page screenshot as test-artifacts/browser/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS_DIRECTORY, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`) as `${string}.png`, fullPage: true });
}

// Signed-in Chromium pages on a test dashboard, and screenshots for people to look at after `npm test`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { call } from '../launcher/launcher-harness.js';
import { launchChromium, SCREENSHOTS } from '../support/browser.js';
import { startDashboard, type Dashboard, type DashboardOptions } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';

/** Builds web/dist once per test file, as `npm run build` does. */
export function buildBundle(): void {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('../../web/build.mjs', import.meta.url))], {
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`the dashboard bundle did not build: ${build.stderr}`);
}

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

/** A browser context holding the dashboard's session cookie, so every page opens signed in. */
export async function signedIn(browser: Browser, dashboard: Dashboard, viewport = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  const { hostname } = new URL(dashboard.launcher.url);
  const [name = '', value = ''] = dashboard.cookie.split('=');
  await context.addCookies([{ name, value, domain: hostname, path: '/', httpOnly: true, sameSite: 'Strict' }]);
  return context;
}

/**
 * Opens `#/<hash>` and waits for every `ready` selector. On a page already open a new hash is drawn by a later task
 * (the router's `hashchange`): until then the last page's DOM is there, so the wait starts once the router marked
 * the page as drawn for this hash (`#page[data-route]`, web/src/main.ts).
 */
export async function open(page: Page, dashboard: Dashboard, hash: string, ready: string | string[]): Promise<void> {
  await page.goto(`${dashboard.launcher.url}/#/${hash}`);
  await page.waitForFunction(() => document.getElementById('page')?.dataset.route === window.location.hash);
  for (const selector of typeof ready === 'string' ? [ready] : ready) await page.waitForSelector(selector);
}

/** A chat reply that is whole and whose turn has ended (web/src/pages/chat.ts); history replies are never busy. */
export const REPLY = '.bubble.assistant:not([aria-busy="true"])';

/**
 * Waits until the first element `selector` matches has the text `expected` (it may first show an earlier state); on
 * a timeout fails with the text it had, as `assert.is` would.
 */
export async function textIs(page: Page, selector: string, expected: string): Promise<void> {
  try {
    await page.waitForFunction(([s, e]) => document.querySelector(s)?.textContent === e, [selector, expected] as const);
  } catch {
    assert.is(
      await page
        .locator(selector)
        .first()
        .textContent({ timeout: 1000 })
        .catch(() => null),
      expected,
    );
  }
}

/** `tests/output/screenshots/dashboard-<name>.png` (git-ignored). */
export const shot = (page: Page, name: string, fullPage = true) =>
  page.screenshot({ path: `${SCREENSHOTS}dashboard-${name}.png`, fullPage });

/** How far the page is wider than the window (0 when nothing overflows sideways). */
export const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** A dashboard and a Chromium for one test, both closed however it ends. */
export async function withBrowser(
  options: DashboardOptions,
  body: (dashboard: Dashboard, browser: Browser) => Promise<void>,
): Promise<void> {
  const dashboard = await startDashboard(options);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    await body(dashboard, browser);
  } finally {
    await browser?.close();
    await dashboard.close();
  }
}

/** A streamed answer that calls one tool, after some text when given. */
export const toolCall = (id: string, name: string, args: Record<string, unknown>, text = '') =>
  sse([
    completionStreamText(
      [
        ...(text ? [{ content: text }] : []),
        { tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] },
      ],
      'tool_calls',
    ),
  ]);

/** The dashboard API's `/api/events` answer for this query. */
export async function events<T extends Envelope['type']>(
  dashboard: Dashboard,
  query: string,
): Promise<Array<Extract<Envelope, { type: T }>>> {
  return (
    (await call(dashboard.launcher, `/api/events?${query}`, { cookie: dashboard.cookie })).body as {
      events: Array<Extract<Envelope, { type: T }>>;
    }
  ).events;
}

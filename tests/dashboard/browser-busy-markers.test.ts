// The markers the browser tests wait on instead of content that is also there before the state they check: a region
// that fills from a request says `aria-busy="true"` until its answer is drawn, the router marks which hash the page was
// drawn for, and a streamed chat reply is busy until it is whole and its turn has ended. Each is checked while the
// answer it waits for is held back (the dashboard's API requests, the model's stream).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { watchViolations } from '../support/browser.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { buildBundle, open, REPLY, signedIn, withBrowser } from './browser-session.js';

buildBundle();

/** Each page and the regions on it that fill from requests of their own. */
const PAGES: Array<[string, string[]]> = [
  ['config', ['#config-form', '#cron-jobs']],
  ['machines', ['#machines-board', '#finished-turns']],
  ['sessions', ['#sessions']],
  ['usage', ['#usage']],
  ['gateway', ['#gateway-channel-list']],
  ['logs', ['#log-lines']],
  ['status', ['.status-page']],
  ['plugins', ['#plugins']],
  ['skills', ['#skills-installed', '#skills-drafts']],
];

const busyOf = (page: Page, regions: string[]) =>
  Promise.all(regions.map((region) => page.locator(region).getAttribute('aria-busy')));

test('a region filled by a request is busy until its answer is drawn; the router marks the hash drawn', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    const context = await signedIn(browser, dashboard);
    let release = (): void => {};
    let held = Promise.resolve();
    // Every API request of the page waits for `release` (the live socket is not a request Playwright routes).
    await context.route(/\/api\//, async (route) => {
      await held;
      await route.continue();
    });
    const page = await context.newPage();
    const problems = watchViolations(page);
    let last: string[] = [];
    for (const [hash, regions] of PAGES) {
      held = new Promise<void>((resolve) => (release = resolve));
      await page.goto(`${dashboard.launcher.url}/#/${hash}`);
      await page.waitForFunction((h) => document.getElementById('page')?.dataset.route === h, `#/${hash}`);
      const left = await Promise.all(last.map((region) => page.locator(region).count()));
      assert.equal(
        left,
        last.map(() => 0),
        `once ${hash} is marked drawn, nothing of the last page is left`,
      );
      assert.equal(
        await busyOf(page, regions),
        regions.map(() => 'true'),
        `${hash} while its answers are held`,
      );
      release();
      for (const region of regions) await page.waitForSelector(`${region}[aria-busy="false"]`);
      last = regions;
    }
    assert.equal(problems, [], 'no script errors and no CSP violations');
  });
});

test('a streamed chat reply is busy until it is whole and its turn has ended', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    const page = await (await signedIn(browser, dashboard)).newPage();
    await open(page, dashboard, 'chat', '#chat-empty');
    // The model streams its first piece, then holds until the test lets it finish.
    const frames = completionStreamText([{ content: 'First part,' }, { content: ' second part.' }]).split(/(?<=\n\n)/);
    let finish = (): void => {};
    const until = new Promise<void>((resolve) => (finish = resolve));
    dashboard.vendor.reply({ ...sse(frames), pause: { after: 2, until } });
    await page.fill('#chat-input', 'two parts, please');
    await page.click('#chat-send');

    await page.waitForFunction(() => document.querySelector('.bubble.assistant .body')?.textContent === 'First part,');
    assert.is(await page.getAttribute('.bubble.assistant', 'aria-busy'), 'true', 'half a reply is busy');
    assert.is(await page.locator(REPLY).count(), 0, 'the tests wait past half a reply');

    finish();
    await page.waitForSelector(`${REPLY} .turn-link`);
    assert.is(await page.textContent(`${REPLY} .body`), 'First part, second part.');
    assert.ok(await page.locator(`${REPLY} .meta span[title]`).count(), 'the time of its turn is under it');
  });
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { watchViolations } from '../support/browser.js';
import { buildBundle, DESKTOP, open, overflow, PHONE, signedIn, withBrowser } from './browser-session.js';
import { manyTurnDrafts } from './many-turns.js';
import { brokenWords, changedFromBaseline, MAX_CHANGED, UPDATING } from './visual.js';

buildBundle();

/** The seeded turns' time: the browser's clock is set a minute after the last, so every "ago" reads the same. */
const START = Date.UTC(2026, 10, 20, 9, 0, 0);
const TURNS = 30;
const NOW = START + TURNS * 1000 + 60_000;

/**
 * Every page, how to know it is drawn, and what changes between runs (times, ports, the gateway's own events).
 * `words: false`: the Config and Status pages are being rebuilt as forms and cards by issue #39's other half, which
 * owns their words; they are checked for width and looks only.
 */
type Ready = string | string[];
const PAGES: Array<{ name: string; hash: string; ready: Ready; mask: string[]; words?: false; pixels?: false }> = [
  { name: 'chat', hash: 'chat', ready: '.bubble.assistant', mask: ['.bubble .meta'] },
  // Live actors move on their own (the heartbeat's wait, the gateway's settle): their state and chart are masked.
  {
    name: 'machines',
    hash: 'machines',
    // The live actors and the finished turns are two requests: the page is drawn once both are.
    ready: ['#machines-board[aria-busy="false"]', '#finished-turns[aria-busy="false"] li[data-turn]'],
    mask: ['.card-sub', '.card-foot', '.card.actor .chart-wrap', '.card.actor .pill'],
  },
  { name: 'sessions', hash: 'sessions', ready: '.session-item', mask: [] },
  { name: 'session', hash: 'sessions/sk_v1_many0', ready: '#session-turns li', mask: [] },
  { name: 'turn', hash: 'turn/t_many_29', ready: '#turn-events .event-row', mask: [] },
  { name: 'usage', hash: 'usage', ready: '#usage[aria-busy="false"]', mask: [] },
  { name: 'events', hash: 'events', ready: '#events .event-row', mask: ['#events'] },
  { name: 'gateway', hash: 'gateway', ready: '#gateway-channels li', mask: ['#gateway-status'] },
  {
    name: 'config',
    hash: 'config',
    // The scheduled jobs under the form come from a request of their own.
    ready: ['#config-form[aria-busy="false"] input', '#cron-jobs[aria-busy="false"]'],
    mask: ['#config-form'],
    words: false,
  },
  // The gateway's log grows while the page is open, and with it the page: checked for width and words only.
  { name: 'logs', hash: 'logs', ready: '#log-lines[aria-busy="false"]', mask: ['#log-lines'], pixels: false },
  { name: 'status', hash: 'status', ready: '#inventory-cron', mask: [], words: false },
  { name: 'plugins', hash: 'plugins', ready: '#plugins[aria-busy="false"]', mask: [] },
  {
    name: 'skills',
    hash: 'skills',
    ready: ['#skills-installed[aria-busy="false"]', '#skills-drafts[aria-busy="false"]'],
    mask: [],
  },
];

async function look(page: Page, width: number, openPage: (hash: string, ready: Ready) => Promise<void>) {
  const problems: string[] = [];
  for (const { name, hash, ready, mask, words, pixels } of PAGES) {
    await openPage(hash, ready);
    const wide = await overflow(page);
    if (wide > 0) problems.push(`${name} at ${width} px is ${wide} px too wide`);
    const broken = words === false ? [] : await brokenWords(page);
    if (broken.length) problems.push(`${name} at ${width} px breaks ${broken.join(', ')} mid-word`);
    if (pixels === false) continue;
    const changed = await changedFromBaseline(page, `${name}-${width}`, [
      ...mask.map((selector) => page.locator(selector)),
      page.locator('.when, [data-at]'),
    ]);
    if (changed > MAX_CHANGED)
      problems.push(`${name} at ${width} px: ${(changed * 100).toFixed(1)}% of pixels changed`);
  }
  return problems;
}

/** The nav shows that it scrolls; date fields, built-in skills and the plugins' hint say what they are. */
async function phoneDetails(page: Page, openPage: (hash: string, ready: Ready) => Promise<void>): Promise<void> {
  await openPage('events', '#events .event-row');
  const nav = await page
    .locator('#nav')
    .evaluate((el) => [el.scrollWidth > el.clientWidth, getComputedStyle(el).maskImage !== 'none']);
  assert.equal(nav, [true, true], 'the nav is wider than the phone and fades at its edge');
  assert.equal(await page.locator('.date-field > span').allTextContents(), ['From', 'To']);
  await openPage('plugins', '#plugins[aria-busy="false"]');
  assert.is(
    await page.textContent('#plugins'),
    'No plugins installed (or the gateway is stopped). tern plugins install NAME installs one.',
  );
  assert.is(await page.textContent('#plugins code'), 'tern plugins install NAME');
  await openPage('skills', '#skills-installed tr[data-root]');
  const roots = await page.locator('#skills-installed tr[data-root="builtin"] td:nth-child(2)').allTextContents();
  assert.ok(roots.length > 0 && roots.every((root) => root === 'built-in'), `roots: ${roots.join(', ')}`);
}

test(
  'every page at 1280 and 390 px: nothing wider than the window, no word broken mid-word, ' +
    `and as the baseline looks${UPDATING ? ' (updating the baselines)' : ''}`,
  async () => {
    await withBrowser({}, async (dashboard, browser) => {
      for (const draft of manyTurnDrafts(TURNS, 3, START)) dashboard.host.publish(draft);
      await dashboard.host.log()?.committed();
      const problems: string[] = [];
      for (const viewport of [DESKTOP, PHONE]) {
        const context = await signedIn(browser, dashboard, viewport);
        const page = await context.newPage();
        await page.clock.setFixedTime(NOW);
        const violations = watchViolations(page);
        const openPage = async (hash: string, ready: Ready) => open(page, dashboard, hash, ready);
        problems.push(...(await look(page, viewport.width, openPage)), ...violations);
        if (viewport === PHONE) await phoneDetails(page, openPage);
        await context.close();
      }
      assert.equal(problems, []);
    });
  },
);

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Envelope } from '../../bus/index.js';
import { putCronJob } from '../../store/cron-db.js';
import { call } from '../launcher/launcher-harness.js';
import { passes } from '../support/eventually.js';
import { watchViolations } from '../support/browser.js';
import { chatSocket, replyStreamed, type Dashboard } from '../support/dashboard-harness.js';
import { freePort } from '../support/mcp-servers.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { sseHeaders } from '../support/vendor-server.js';
import { buildBundle, open, overflow, PHONE, shot, signedIn, withBrowser } from './browser-session.js';

buildBundle();

const WEB = { enabled: true, type: 'pico', settings: { streaming: { enabled: true } } };

async function get<T>(dashboard: Dashboard, path: string): Promise<T> {
  return (await call(dashboard.launcher, path, { cookie: dashboard.cookie })).body as T;
}

/** The highlighted state of the turn's chart on the Machines page. */
/**
 * The lit state of the turn's chart. Waits (Playwright's default) for the chart to be there: the live cards are drawn
 * again as events arrive, and on a loaded machine a 100 ms limit caught the card between two drawings (null).
 */
const litState = (page: Page, turn: string): Promise<string | null> =>
  page
    .locator(`[data-actor="turn:${turn}"] svg.chart .node.current`)
    .getAttribute('data-state')
    .catch(() => null);

test(
  "machines: a turn's chart lights each state live while the turn runs, " +
    'a failed Telegram channel shows its error, and long ids are shortened with the whole id on hover',
  async () => {
    const closed = await freePort();
    await withBrowser(
      {
        channels: {
          web: WEB,
          tg: {
            enabled: true,
            type: 'telegram',
            settings: { token: '123:abc', base_url: `http://127.0.0.1:${closed}` },
          },
        },
      },
      async (dashboard, browser) => {
        const page = await (await signedIn(browser, dashboard)).newPage();
        const problems = watchViolations(page);
        await open(page, dashboard, 'machines', '[data-actor="channel:tg"] .reason.bad');
        const tg = await get<{ reason: string; state: string }>(dashboard, '/api/actors/channel:tg');
        // The page hears of the failure from the bus, maybe before the log has committed it.
        await passes(async () => {
          const failures = await get<{ events: Array<Envelope<'channel.failed'>> }>(
            dashboard,
            '/api/events?type=channel.failed&limit=1',
          );
          assert.is(tg.reason, failures.events[0]?.data.message);
        });
        assert.is(await page.textContent('[data-actor="channel:tg"] .reason.bad'), `Failed: ${tg.reason}`);

        // The model answers only when the turn is stopped: the turn waits in calling_model meanwhile.
        dashboard.vendor.reply({ status: 200, headers: sseHeaders, chunks: [], after: 'stall' });
        const chat = await chatSocket(dashboard);
        const answered = chat.send('take your time', 'machinelive');
        await page.waitForSelector('[data-machine="turn"] svg.chart .node.current[data-state="calling_model"]');
        // The page hears of the turn from the bus, maybe before the log has committed turn.started.
        let started: Envelope<'turn.started'> | undefined;
        await passes(async () => {
          [started] = (
            await get<{ events: Array<Envelope<'turn.started'>> }>(dashboard, '/api/events?type=turn.started&limit=1')
          ).events;
          assert.ok(started?.turn, 'turn.started is in the log');
        });
        const turn = started?.turn ?? '';
        assert.is(await litState(page, turn), 'calling_model');
        assert.is(
          await page.locator(`[data-actor="turn:${turn}"] .edge.last`).getAttribute('data-from'),
          'building_prompt',
        );
        assert.is(await page.textContent(`[data-actor="turn:${turn}"] .actor-state`), 'calling model');
        await shot(page, 'machines-turn-running');
        const stopper = await chatSocket(dashboard);
        await stopper.send('/stop', 'machinelive');
        await page.waitForSelector(`[data-actor="turn:${turn}"] svg.chart .node.current[data-state="stopped"]`);
        assert.is(await page.textContent(`[data-actor="turn:${turn}"] .actor-state`), 'stopped');
        await answered;
        chat.socket.close();
        stopper.socket.close();

        const session = started?.session ?? '';
        const chip = page.locator(`[data-actor="session:${session}"] .card-sub .id-chip .mono`);
        assert.is(await chip.textContent(), `${session.slice(0, 12)}…${session.slice(-6)}`);
        assert.is(await chip.getAttribute('title'), session);
        assert.is(await page.textContent(`[data-actor="session:${session}"] .name`), 'web chat · machinelive');
        await shot(page, 'machines');
        await page.click(`[data-actor="turn:${turn}"] .card-links a:has-text("history")`);
        await page.waitForSelector('#actor-detail #detail-history li');
        assert.equal(await page.locator('#detail-history li strong').allTextContents(), [
          'stopped',
          'calling model',
          'building prompt',
        ]);
        await shot(page, 'machines-detail');
        assert.equal(problems, [], 'no script errors and no CSP violations');
      },
    );
  },
);

test(
  'sessions, event log, logs and gateway: readable sessions with search, a session page linking its turns, ' +
    'a virtualised log that opens rows and follows, wrapped log lines, and buttons by state with restart progress',
  async () => {
    await withBrowser({}, async (dashboard, browser) => {
      const chat = await chatSocket(dashboard);
      replyStreamed(dashboard.vendor, ['Alpha answer']);
      await chat.send('alpha question', 'webalpha');
      replyStreamed(dashboard.vendor, ['Beta answer']);
      await chat.send('beta question', 'webbeta');
      chat.socket.close();
      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);

      await open(page, dashboard, 'sessions', '#sessions .session-item');
      assert.equal(await page.locator('#sessions .session-name').allTextContents(), [
        'web chat webbeta',
        'web chat webalpha',
      ]);
      assert.match(
        (await page.textContent('#sessions .session-item .session-facts')) ?? '',
        'agent main · from web · 1 turn · 2 messages · 12 in / 5 out tokens',
      );
      await page.fill('#session-search', 'alpha');
      assert.equal(await page.locator('#sessions .session-name').allTextContents(), ['web chat webalpha']);
      await shot(page, 'sessions');
      await page.click('#sessions .session-item');
      await page.waitForSelector('#session-turns li');
      const [alpha] = (
        await get<{ events: Array<Envelope<'turn.started'>> }>(
          dashboard,
          '/api/events?type=turn.started&limit=1&order=asc',
        )
      ).events;
      assert.equal(
        await page
          .locator('#session-turns a.turn-link')
          .evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')])),
        [['alpha question', `#/turn/${alpha?.turn}`]],
      );
      assert.equal(await page.locator('#session-detail .bubble .body').allTextContents(), [
        'alpha question',
        'Alpha answer',
      ]);
      await shot(page, 'session');

      for (let i = 0; i < 500; i++)
        dashboard.host.publish({ type: 'heartbeat.ticked', data: { outcome: 'skipped', reason: `tick ${i}` } });
      await dashboard.host.log()?.committed();
      await open(page, dashboard, 'events', '#events .event-row');
      assert.is(await page.textContent('#events-message'), '200 events, newest first · following');
      const drawn = await page.locator('#events .event-row').count();
      assert.ok(drawn > 10 && drawn < 60, `only the rows in view are drawn (${drawn} of 200)`);
      await page.locator('#events').evaluate((list) => list.scrollTo(0, list.scrollHeight));
      // Scrolled to the end, the next 200 older events load.
      await page.waitForFunction(
        () => Number.parseInt(document.querySelector('#events-message')?.textContent ?? '', 10) >= 400,
      );
      await page.locator('#events').evaluate((list) => list.scrollTo(0, 0));
      const top = page.locator('#events .event-row').first();
      await top.locator('.event-line').click();
      const json = JSON.parse((await top.locator('.event-json').textContent()) ?? '{}') as Envelope;
      assert.equal([json.type, json.seq], ['heartbeat.ticked', Number(await top.getAttribute('data-seq'))]);
      dashboard.host.publish({ type: 'cron.fired', data: { job: 'followed', kind: 'message' } });
      await page.waitForFunction(
        () =>
          document.querySelector('#events .event-row .event-text')?.textContent ===
          '{"job":"followed","kind":"message"}',
      );
      await shot(page, 'events');
      await page.fill('#filter-type', 'turn.*');
      await page.click('.filters button[type=submit]');
      await page.waitForFunction(() => document.querySelector('#events-message')?.textContent?.startsWith('4 events'));
      assert.equal(await page.locator('#events .event-type').allTextContents(), [
        'turn.completed',
        'turn.started',
        'turn.completed',
        'turn.started',
      ]);

      const long = `${new Date().toISOString()} WARN ${'x'.repeat(3000)}`;
      appendFileSync(dashboard.host.logFile(), `${long}\n`);
      await open(page, dashboard, 'logs', '#log-lines .log-line.warn');
      const wrapped = await page
        .locator('#log-lines')
        .evaluate((box) => [
          box.scrollWidth <= box.clientWidth,
          box.querySelector('.log-line.warn')?.textContent?.length,
        ]);
      assert.equal(wrapped, [true, long.length], 'the whole line, wrapped');
      await shot(page, 'logs');

      await open(page, dashboard, 'gateway', '#gateway-channels li');
      const enabled = () =>
        page
          .locator('.actions button')
          .evaluateAll((buttons) => buttons.map((b) => [b.id, !(b as HTMLButtonElement).disabled]));
      assert.equal(await enabled(), [
        ['gateway-start', false],
        ['gateway-stop', true],
        ['gateway-restart', true],
      ]);
      assert.equal(
        await page
          .locator('#gateway-channels li')
          .evaluateAll((items) =>
            items.map((li) => [li.getAttribute('data-channel'), li.querySelector('.pill')?.textContent]),
          ),
        [['web', 'connected']],
      );
      await page.click('#gateway-restart');
      await page.waitForFunction(() =>
        document.querySelector('#gateway-progress li:last-child')?.textContent?.startsWith('running'),
      );
      assert.equal(
        (await page.locator('#gateway-progress li').allTextContents()).map((t) => t.split(' ')[0]),
        ['restart', 'stopping', 'stopped', 'starting', 'running'],
      );
      assert.equal(await enabled(), [
        ['gateway-start', false],
        ['gateway-stop', true],
        ['gateway-restart', true],
      ]);
      await shot(page, 'gateway');
      await page.click('#gateway-stop');
      await page.waitForFunction(() => document.querySelector('#gateway-state')?.textContent === 'stopped');
      assert.equal(await enabled(), [
        ['gateway-start', true],
        ['gateway-stop', false],
        ['gateway-restart', false],
      ]);
      assert.equal(problems, [], 'no script errors and no CSP violations');
    });
  },
);

test('config and status: a bad value shows its error; cron jobs are listed', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    const page = await (await signedIn(browser, dashboard)).newPage();
    await open(page, dashboard, 'config', '#config-form input');
    await page.waitForFunction(() =>
      (document.querySelector('#config-raw') as HTMLTextAreaElement | null)?.value.includes('model_list'),
    );
    const raw = await page.inputValue('#config-raw');
    assert.not.match(raw, 'sk-test-key-0001');
    const config = JSON.parse(raw) as { agents: { defaults: Record<string, unknown> } };
    config.agents.defaults.max_tool_iterations = -3;
    await page.click('#config-tab-raw');
    await page.fill('#config-raw', JSON.stringify(config, null, 2));
    await page.click('#config-save');
    await page.waitForSelector('#config-issues .issues li');
    assert.match((await page.textContent('#config-issues .issues')) ?? '', 'agents.defaults.max_tool_iterations');
    await shot(page, 'config');

    await putCronJob(dashboard.home.workspace, {
      id: 'water',
      name: 'drink water',
      enabled: false,
      created_at: '2026-11-01T08:00:00.000Z',
      created_by: { channel: 'cli' },
      schedule: { kind: 'every', seconds: 3600 },
      job: { kind: 'deliver', channel: 'telegram', chat: '42', text: 'drink water' },
    });
    await open(page, dashboard, 'status', '#inventory-cron .status-card');
    const cron = await page
      .locator('#inventory-cron .status-card')
      .evaluateAll((cards) =>
        cards.map((card) => [
          card.querySelector('h3')?.textContent,
          card.querySelector('.pill')?.textContent,
          ...Array.from(
            card.querySelectorAll('dt'),
            (dt) => `${dt.textContent}: ${dt.nextElementSibling?.textContent}`,
          ),
        ]),
      );
    assert.equal(cron, [
      [
        'drink water',
        'paused',
        'ID: water',
        'Schedule: every 3600 s',
        'Does: deliver',
        'Next run: not planned',
        'Last run: never ran',
      ],
    ]);
    await shot(page, 'status');
  });
});

test('on a 390 px phone no page is wider than the screen, long tool output included', async () => {
  await withBrowser({}, async (dashboard, browser) => {
    const unbroken = 'y'.repeat(400);
    dashboard.vendor.reply(
      sse([
        completionStreamText(
          [
            {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'exec', arguments: JSON.stringify({ command: `echo ${unbroken}` }) },
                },
              ],
            },
          ],
          'tool_calls',
        ),
      ]),
    );
    replyStreamed(dashboard.vendor, [`Printed ${unbroken}`]);
    const chat = await chatSocket(dashboard);
    await chat.send('print a long line', 'phone');
    chat.socket.close();
    const [ran] = (
      await get<{ events: Array<Envelope<'tool.completed'>> }>(dashboard, '/api/events?type=tool.completed&limit=1')
    ).events;
    assert.equal(
      [ran?.data.ok, ran?.data.content.includes(unbroken)],
      [true, true],
      'exec ran from the dashboard chat',
    );
    const context = await signedIn(browser, dashboard, PHONE);
    const page = await context.newPage();
    await page.addInitScript(() => localStorage.setItem('tern.chat.session', 'phone'));
    const pages: Array<[string, string, string | string[]]> = [
      ['chat', 'chat', '.step.tool'],
      ['machines', 'machines', ['#machines-board[aria-busy="false"]', '#finished-turns li[data-turn]']],
      ['sessions', 'sessions', '.session-item'],
      ['usage', 'usage', '#usage-tokens canvas'],
      ['session', `sessions/${ran?.session}`, '#session-turns li'],
      ['turn', `turn/${ran?.turn}`, '#waterfall .wf-row'],
      ['events', 'events', '#events .event-row'],
      ['gateway', 'gateway', '#gateway-channels li'],
      ['config', 'config', ['#config-form input', '#cron-jobs[aria-busy="false"]']],
      ['logs', 'logs', '#log-lines[aria-busy="false"]'],
      ['status', 'status', '#inventory-cron'],
    ];
    for (const [name, hash, ready] of pages) {
      await open(page, dashboard, hash, ready);
      if (name === 'chat') {
        await page.click('.step.tool summary');
        const pre = await page
          .locator('.step.tool pre.result')
          .evaluate((box) => [
            box.scrollWidth <= box.clientWidth,
            box.getBoundingClientRect().right <= window.innerWidth,
          ]);
        assert.equal(pre, [true, true], 'the tool output wraps inside its step');
      }
      assert.is(await overflow(page), 0, `${name} fits 390 px`);
      await shot(page, `phone-${name}`);
    }
  });
});

test.run();

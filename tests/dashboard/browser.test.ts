import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromium, SCREENSHOTS, watchViolations } from '../support/browser.js';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { putCronJob } from '../../store/cron-db.js';
import { PASSWORD } from '../launcher/launcher-harness.js';
import { chatSocket, replyStreamed, startDashboard, type Dashboard } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';

const build = spawnSync(process.execPath, [fileURLToPath(new URL('../../web/build.mjs', import.meta.url))], { encoding: 'utf8' });
if (build.status !== 0) throw new Error(`the dashboard bundle did not build: ${build.stderr}`);

async function signIn(page: Page, dashboard: Dashboard): Promise<void> {
  await page.goto(dashboard.launcher.url);
  await page.fill('#password', PASSWORD);
  await Promise.all([page.waitForURL(`${dashboard.launcher.url}/`), page.click('button[type=submit]')]);
  await page.waitForSelector('#chat-input');
}

const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}dashboard-${name}.png`, fullPage: true });

test('in a browser: chat streams a sanitized markdown reply with tool calls folded under it, a turn machine changes state live, its timeline reruns identical, and a bad config value shows its error', async () => {
  const dashboard = await startDashboard();
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    const problems = watchViolations(page);
    await signIn(page, dashboard);

    replyStreamed(dashboard.vendor, ['**Hello** ', 'there <img src=x onerror=alert(1)>', ' `code`']);
    await page.fill('#chat-input', 'hi');
    await page.click('#chat-send');
    const reply = page.locator('.bubble.assistant .body');
    await page.waitForFunction(() => document.querySelector('.bubble.assistant .body')?.textContent?.endsWith('code'));
    assert.is(await reply.textContent(), 'Hello there <img src=x onerror=alert(1)> code');
    assert.is(await reply.locator('strong').textContent(), 'Hello');
    assert.is(await reply.locator('code').textContent(), 'code');
    assert.is(await reply.locator('img').count(), 0);

    dashboard.vendor.reply(sse([completionStreamText([{ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } }] }], 'tool_calls')]));
    replyStreamed(dashboard.vendor, ['Listed ', 'the workspace.']);
    await page.fill('#chat-input', 'what is in the workspace?');
    await page.click('#chat-send');
    await page.waitForFunction(() => document.querySelectorAll('.bubble.assistant')[1]?.querySelector('.body')?.textContent === 'Listed the workspace.');
    const folded = page.locator('.bubble.assistant').nth(1).locator('details.tools');
    assert.is(await folded.isVisible(), true);
    await folded.locator('summary').click();
    assert.match((await folded.locator('pre').first().textContent()) ?? '', 'list_dir({"path":"."})');
    await shot(page, 'chat');

    await page.goto(`${dashboard.launcher.url}/#/machines`);
    await page.waitForSelector('#actors tr');
    const before = await page.locator('#actors tr').count();
    const chat = await chatSocket(dashboard);
    replyStreamed(dashboard.vendor, ['second answer']);
    await chat.send('again', 'browserlive');
    chat.socket.close();
    await page.waitForFunction((n) => document.querySelectorAll('#actors tr').length > n, before);
    const newest = page.locator('#actors tr[data-actor^="turn:"]').first();
    await page.waitForFunction(() => document.querySelector('#actors tr[data-actor^="turn:"] .actor-state')?.textContent?.startsWith('done'));
    const listed = await page.locator('#actors tr').evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-actor') ?? '', row.querySelector('.actor-state')?.textContent ?? '']));
    const states = Object.fromEntries(listed.map(([actor, state]) => [actor?.startsWith('session:') ? 'session' : actor, state]));
    assert.equal([states.gateway, states.heartbeat, states['channel:web'], states.session], ['running', 'waiting', 'connected', 'idle'], JSON.stringify(listed));
    await shot(page, 'machines');
    await newest.locator('a').click();
    await page.waitForSelector('#actor-detail .state.active[data-state="done"]');
    assert.is(await page.textContent('#detail-state'), 'done');
    await shot(page, 'machines-turn');

    await page.goto(`${dashboard.launcher.url}/#/events`);
    await page.waitForSelector('#events .turn-link');
    await shot(page, 'events');
    await page.locator('#events .turn-link').first().click();
    await page.waitForSelector('#waterfall .span.model');
    await page.click('#rerun');
    await page.waitForFunction(() => document.querySelector('#rerun-result')?.textContent?.startsWith('identical'));
    await shot(page, 'turn');

    await page.goto(`${dashboard.launcher.url}/#/config`);
    await page.waitForFunction(() => (document.querySelector('#config-raw') as HTMLTextAreaElement | null)?.value.includes('model_list'));
    const raw = await page.inputValue('#config-raw');
    assert.not.match(raw, 'sk-test-key-0001');
    const config = JSON.parse(raw) as { agents: { defaults: Record<string, unknown> } };
    config.agents.defaults.max_tool_iterations = -3;
    await page.fill('#config-raw', JSON.stringify(config, null, 2));
    await page.click('#config-save');
    await page.waitForSelector('#config-issues .issues li');
    assert.match((await page.textContent('#config-issues .issues')) ?? '', 'agents.defaults.max_tool_iterations');
    await shot(page, 'config');

    await putCronJob(dashboard.home.workspace, {
      id: 'water', name: 'drink water', enabled: false, created_at: '2026-11-01T08:00:00.000Z', created_by: { channel: 'cli' },
      schedule: { kind: 'every', seconds: 3600 }, job: { kind: 'deliver', channel: 'telegram', chat: '42', text: 'drink water' },
    });
    for (const name of ['sessions', 'logs', 'status', 'gateway']) {
      await page.goto(`${dashboard.launcher.url}/#/${name}`);
      await page.waitForLoadState('networkidle');
      await shot(page, name);
      if (name === 'status') {
        await page.waitForSelector('#inventory-cron td');
        const cron = await page.locator('#inventory-cron tr').evaluateAll((rows) => rows.map((row) => Array.from(row.children, (cell) => cell.textContent)));
        assert.equal(cron, [
          ['id', 'name', 'schedule', 'kind', 'enabled', 'next_run', 'last_outcome'],
          ['water', 'drink water', 'every 3600 s', 'deliver', 'false', '', 'never ran'],
        ]);
      }
    }
    assert.is(await page.textContent('#gateway-status').then((t) => t?.split(' ')[0]), 'running');
    assert.equal(problems, [], 'no script errors and no CSP violations');
  } finally {
    await browser?.close();
    await dashboard.close();
  }
});

test.run();

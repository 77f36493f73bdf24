import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../launcher/launcher-harness.js';
import { watchViolations } from '../support/browser.js';
import type { Dashboard } from '../support/dashboard-harness.js';
import { buildBundle, open, overflow, PHONE, signedIn, withBrowser } from './browser-session.js';

buildBundle();

const SETTINGS = {
  model_name: 'smart',
  stream: false,
  max_tool_iterations: 5,
  loop_detection: { enabled: false, repeat_threshold: 3, critical_threshold: 6, window_size: 20 },
};

/** A finished turn of the priced model `smart` in its own session; `usage` undefined: the vendor sent no figures. */
function seedTurn(dashboard: Dashboard, name: string, usage?: { input_tokens: number; output_tokens: number }): void {
  const keys = { agent: 'main', session: `sk_v1_${name}`, turn: `t_${name}` };
  const session_key = `v=1|agent=main|channel=cli|account=default|chat=direct:${name}`;
  const started = { message_id: name, channel: 'cli', chat: `direct:${name}`, text: name, session_key };
  dashboard.host.publish({ ...keys, type: 'turn.started', data: { ...started, settings: SETTINGS } });
  dashboard.host.publish({
    ...keys,
    type: 'provider.requested',
    data: { model_name: 'smart', stream: false, iteration: 1, message_count: 1 },
  });
  dashboard.host.publish({
    ...keys,
    type: 'provider.responded',
    data: { text: 'ok', tool_calls: [], ...(usage ? { usage } : {}), iteration: 1 },
  });
  dashboard.host.publish({ ...keys, type: 'turn.completed', data: { reply: 'ok', iterations: 1 } });
}

test(
  'usage: an answer without usage figures is unknown, never $0.00; ' + 'cost ticks differ; tables are cards on a phone',
  async () => {
    const models = [{ model_name: 'smart', model: 'house-model', pricing: { input: 2, output: 8 } }];
    await withBrowser({ models }, async (dashboard, browser) => {
      seedTurn(dashboard, 'silent');
      // (5 × $2 + 1 × $8) per million tokens: $0.000018, below what four decimals tell apart.
      seedTurn(dashboard, 'tiny', { input_tokens: 5, output_tokens: 1 });
      await dashboard.host.log()?.committed();
      const report = (await call(dashboard.launcher, '/api/usage', { cookie: dashboard.cookie })).body as {
        total: { calls: number; unreported_calls: number; cost_usd: number };
      };
      assert.equal(report.total, { ...report.total, calls: 2, unreported_calls: 1, cost_usd: 0.000018 });

      const page = await (await signedIn(browser, dashboard)).newPage();
      const problems = watchViolations(page);
      await open(page, dashboard, 'sessions', '[data-session="sk_v1_silent"]');
      const silent = page.locator('[data-session="sk_v1_silent"] .session-facts');
      assert.match((await silent.textContent()) ?? '', / · tokens unknown · cost unknown$/);
      assert.match(
        (await page.textContent('[data-session="sk_v1_tiny"] .session-facts')) ?? '',
        /5 in \/ 1 out tokens/,
      );
      await open(page, dashboard, 'sessions/sk_v1_silent', '#session-turns li');
      assert.match((await page.textContent('#session-turns li .turn-facts')) ?? '', /tokens unknown · cost unknown$/);

      await open(page, dashboard, 'usage', '#usage-cost .chart-frame[data-ticks]');
      const ticks = ((await page.getAttribute('#usage-cost .chart-frame', 'data-ticks')) ?? '').split(' | ');
      assert.ok(ticks.length >= 3, `ticks ${ticks.join(', ')}`);
      assert.is(new Set(ticks).size, ticks.length, `distinct cost ticks: ${ticks.join(', ')}`);
      assert.is(ticks[0], '$0');
      assert.is(await page.textContent('#usage-totals .stat:first-child .stat-value'), '<$0.0001 + unknown');

      const phone = await (await signedIn(browser, dashboard, PHONE)).newPage();
      await open(phone, dashboard, 'usage', '#usage-by-model tbody tr');
      const card = await phone
        .locator('#usage-by-model tbody tr')
        .first()
        .evaluate((row) => [getComputedStyle(row).display, getComputedStyle(row.closest('table')!.tHead!).display]);
      assert.equal(card, ['block', 'none'], 'each row is a card, without the header row');
      assert.is(await overflow(phone), 0, 'usage fits 390 px');
      assert.equal(problems, []);
    });
  },
);

test.run();

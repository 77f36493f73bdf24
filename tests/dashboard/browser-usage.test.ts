import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { watchViolations } from '../support/browser.js';
import { chatSocket, type Dashboard } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { buildBundle, open, overflow, PHONE, shot, signedIn, withBrowser } from './browser-session.js';

buildBundle();

/** $2 input, $0.50 cached input, $8 output per million tokens. */
const PRICING = { input: 2, output: 8, cached_input: 0.5 };
/** Each real answer: 1,200 input tokens of which 1,024 cached, 300 output; (176 × 2 + 1,024 × 0.5 + 300 × 8) / 1e6 dollars. */
const USAGE = { prompt_tokens: 1200, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 256 } } as never;
const ONE_ANSWER = 0.003264;

const pad = (n: number): string => String(n).padStart(2, '0');
const dayKey = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const daysAgo = (n: number, hour = 0): Date => {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - n, hour);
};

/**
 * Answers of the agent `helper` through the unpriced model `fast`, at noon `days` ago, recorded as the turn machine
 * records them: the request naming the model, then the answer with its usage.
 */
function seedAnswer(dashboard: Dashboard, days: number, input: number, output: number): void {
  const at = daysAgo(days, 12).getTime();
  const keys = { agent: 'helper', session: 'sk_v1_helper', turn: `t_helper_${days}` };
  dashboard.host.publish({ ...keys, at, type: 'provider.requested', data: { model_name: 'fast', stream: false, iteration: 1, message_count: 1 } });
  dashboard.host.publish({ ...keys, at, type: 'provider.responded', data: { text: 'done', tool_calls: [], usage: { input_tokens: input, output_tokens: output }, iteration: 1 } });
}

const texts = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allTextContents();

/** Each column of a chart: its key, its total, and the drawn height of its bars. */
const columns = (page: Page, chart: string) => page.locator(`#${chart} .column`).evaluateAll((groups) => groups.map((g) => ({
  key: g.getAttribute('data-key') ?? '',
  total: Number(g.getAttribute('data-total')),
  height: Array.from(g.querySelectorAll('rect.bar'), (bar) => Number(bar.getAttribute('height'))).reduce((a, b) => a + b, 0),
  mark: g.querySelector('.mark')?.textContent ?? '',
})));

const tableRows = (page: Page, id: string) => page.locator(`#${id} tbody tr`).evaluateAll((rows) =>
  rows.map((row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent ?? '').slice(0, 6)));

test('usage: an empty state, then tokens and cost per day and hour drawn from real turns and recorded answers, by model and agent, unknown prices as such, budgets, live', async () => {
  await withBrowser({
    defaults: { model: 'smart', budget: { daily: 0.01, monthly: 1 } },
    models: [{ model_name: 'smart', model: 'house-model', pricing: PRICING, streaming: { enabled: true } }],
  }, async (dashboard, browser) => {
    const page = await (await signedIn(browser, dashboard)).newPage();
    const problems = watchViolations(page);
    await open(page, dashboard, 'usage', '#usage-empty');
    assert.is(await page.textContent('#usage-empty p'), 'No model answered in last 30 days. Every answer\'s tokens are recorded; they show here after the agents\' next replies.');
    assert.equal(await texts(page, '#usage-budgets .budget-figures'), ['$0.00 of $0.0100 (0%)', '$0.00 of $1.00 (0%)']);
    assert.is(await page.locator('.bar-chart').count(), 0, 'no chart without data');
    await shot(page, 'usage-empty');

    seedAnswer(dashboard, 3, 5000, 1000);
    seedAnswer(dashboard, 2, 2000, 500);
    const chat = await chatSocket(dashboard);
    for (const text of ['one', 'two', 'three']) {
      dashboard.vendor.reply(sse([completionStreamText([{ content: `answer ${text}` }], 'stop', USAGE)]));
      await chat.send(text, 'usage');
    }

    await open(page, dashboard, 'usage/7d', '#usage-tokens .column');
    assert.is(await page.inputValue('#usage-range'), '7d');
    assert.equal(await texts(page, '#usage-totals .stat-value'), ['$0.0098 + unknown', '10,600', '3,072', '2,400', '5', '5']);
    assert.match((await page.textContent('#usage-unpriced')) ?? '', 'No price for fast: answers of this model count in tokens, their cost is unknown (?), not $0.');

    // One column per local day, today last; the bars' heights in proportion to the tokens.
    const days = [6, 5, 4, 3, 2, 1, 0].map((n) => dayKey(daysAgo(n)));
    const tokens = await columns(page, 'usage-tokens');
    assert.equal(tokens.map((c) => [c.key, c.total]), days.map((key, i) => [key, [0, 0, 0, 6000, 2500, 0, 4500][i]]));
    const tallest = tokens[3]!.height;
    assert.ok(tallest > 100, `the tallest column is drawn (${tallest} px)`);
    for (const column of tokens) assert.ok(Math.abs(column.height / tallest - column.total / 6000) < 0.005, `${column.key}: ${column.height} px for ${column.total} tokens`);
    const today = page.locator(`#usage-tokens .column[data-key="${days[6]}"] rect.bar`);
    assert.equal(await today.evaluateAll((bars) => bars.map((b) => [b.getAttribute('data-series'), Number(b.getAttribute('data-value'))])), [['cached', 3072], ['input', 528], ['output', 900]]);
    const cost = await columns(page, 'usage-cost');
    assert.equal(cost.map((c) => [c.key, c.total, c.mark]), days.map((key, i) => [key, i === 6 ? 3 * ONE_ANSWER : 0, i === 3 || i === 4 ? '?' : '']));
    assert.ok(cost[6]!.height > 100, 'today\'s cost is the tallest column');

    await page.hover(`#usage-tokens .column[data-key="${days[6]}"]`);
    assert.equal(await texts(page, '#tooltip div'), ['input 3,600 tokens (3,072 cached)', 'output 900 tokens (768 reasoning)', 'cost $0.0098', '3 answers in 3 turns']);

    assert.equal(await tableRows(page, 'usage-by-model'), [['fast', '2', '7,000', '0', '1,500', 'unknown'], ['smart', '3', '3,600', '3,072', '900', '$0.0098']]);
    assert.equal(await tableRows(page, 'usage-by-agent'), [['helper', '2', '7,000', '0', '1,500', 'unknown'], ['main', '3', '3,600', '3,072', '900', '$0.0098']]);
    assert.equal(await texts(page, '#usage-by-model .share-text'), ['65%', '35%']);
    assert.equal(await page.locator('#usage-budgets li').evaluateAll((items) => items.map((li) => [li.getAttribute('data-period'), li.className, li.querySelector('.budget-figures')?.textContent])), [
      ['daily', 'budget warn', '$0.0098 of $0.0100 (97%)'],
      ['monthly', 'budget ok', '$0.0098 of $1.00 (0%)'],
    ]);
    await shot(page, 'usage');

    // The last 24 hours, by hour: the recorded answers of days ago are outside it.
    await page.selectOption('#usage-range', '24h');
    await page.waitForFunction(() => document.querySelectorAll('#usage-tokens .column').length === 24);
    const hours = await columns(page, 'usage-tokens');
    const now = new Date();
    assert.is(hours.at(-1)?.key, `${dayKey(now)} ${pad(now.getHours())}:00`);
    assert.is(hours.reduce((sum, c) => sum + c.total, 0), 4500);
    assert.equal(await texts(page, '#usage-totals .stat-value'), ['$0.0098', '3,600', '3,072', '900', '3', '3']);
    assert.is(await page.locator('#usage-unpriced').count(), 0);

    // A turn while the page is open redraws it: the daily budget is now spent.
    dashboard.vendor.reply(sse([completionStreamText([{ content: 'answer four' }], 'stop', USAGE)]));
    await chat.send('four', 'usage');
    chat.socket.close();
    await page.waitForFunction(() => document.querySelector('#usage-totals .stat-value')?.textContent === '$0.0131');
    assert.equal(await page.locator('#usage-budgets li[data-period="daily"]').evaluate((li) => [li.className, li.querySelector('.budget-figures')?.textContent, li.querySelector('.small')?.textContent]), [
      'budget bad', '$0.0131 of $0.0100 (130%)', 'Spent: no new turn of main starts until tomorrow. Set by agents.defaults.budget.daily.',
    ]);
    await shot(page, 'usage-24h');
    assert.equal(problems, [], 'no script errors and no CSP violations');

    const phone = await (await signedIn(browser, dashboard, PHONE)).newPage();
    await open(phone, dashboard, 'usage/7d', '#usage-cost .column');
    assert.is(await overflow(phone), 0, 'usage fits 390 px');
    assert.is(await phone.locator('#usage-tokens svg').getAttribute('width'), String(await phone.locator('#usage-tokens .chart-frame').evaluate((f) => Math.floor(f.clientWidth))));
    await shot(phone, 'phone-usage');
  });
});

test.run();

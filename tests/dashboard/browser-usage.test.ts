import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { watchViolations } from '../support/browser.js';
import { chatSocket, seedUnpricedTurn, type Dashboard } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';
import { buildBundle, events, open, overflow, PHONE, shot, signedIn, withBrowser } from './browser-session.js';

buildBundle();

/** $2 input, $0.50 cached input, $8 output per million tokens. */
const PRICING = { input: 2, output: 8, cached_input: 0.5 };
/**
 * Each real answer: 1,200 input tokens of which 1,024 cached, 300 output; (176 × 2 + 1,024 × 0.5 + 300 × 8) / 1e6
 * dollars.
 */
const USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  prompt_tokens_details: { cached_tokens: 1024 },
  completion_tokens_details: { reasoning_tokens: 256 },
} as never;
const _ONE_ANSWER = 0.003264;

const pad = (n: number): string => String(n).padStart(2, '0');
const _dayKey = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
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
  dashboard.host.publish({
    ...keys,
    at,
    type: 'provider.requested',
    data: { model_name: 'fast', stream: false, iteration: 1, message_count: 1 },
  });
  dashboard.host.publish({
    ...keys,
    at,
    type: 'provider.responded',
    data: { text: 'done', tool_calls: [], usage: { input_tokens: input, output_tokens: output }, iteration: 1 },
  });
}

const texts = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allTextContents();

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** A day as the chart's legend names it: `Nov 26, 2026`. */
const dayName = (d: Date): string => `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;

/**
 * What a chart's legend shows with the cursor on a column: the column's name, each series' value, and the line under
 * it.
 */
type Legend = { when: string; values: Record<string, string>; detail: string };

/**
 * Moves the mouse to the middle of column `index` of `count` equal columns across the plot, as a person points at a
 * bar, and reads the legend uPlot draws for it.
 */
async function pointAt(page: Page, chart: string, index: number, count: number): Promise<Legend> {
  const over = page.locator(`#${chart} .u-over`);
  await over.scrollIntoViewIfNeeded();
  const box = await over.boundingBox();
  if (!box) throw new Error(`${chart} has no plot`);
  await page.mouse.move(box.x + ((index + 0.5) * box.width) / count, box.y + box.height / 2);
  return page.locator(`#${chart}`).evaluate((figure) => {
    const rows = Array.from(figure.querySelectorAll('.u-legend .u-series'));
    const values: Record<string, string> = {};
    for (const row of rows.slice(1))
      values[row.className.replace('u-series', '').trim()] = row.querySelector('.u-value')?.textContent ?? '';
    return {
      when: rows[0]?.querySelector('.u-value')?.textContent ?? '',
      values,
      detail: figure.querySelector('.chart-detail')?.textContent ?? '',
    };
  });
}

/** Each column's legend, left to right. */
async function legends(page: Page, chart: string, count: number): Promise<Legend[]> {
  const out: Legend[] = [];
  for (let i = 0; i < count; i++) out.push(await pointAt(page, chart, i, count));
  await page.mouse.move(0, 0);
  return out;
}

const figure = (text: string): number => Number(text.replace(/[^0-9.]/g, ''));

/**
 * Read back from the canvas: down the middle of each of `count` columns, how many pixels have one of the `colours`
 * (CSS custom properties) — the drawn height of the column's bars, or of a mark over it.
 */
const painted = (page: Page, chart: string, count: number, colours: string[]) =>
  page.locator(`#${chart}`).evaluate(
    (figure, [count, colours]) => {
      const canvas = figure.querySelector('canvas')!;
      const over = figure.querySelector('.u-over')!.getBoundingClientRect();
      const frame = canvas.getBoundingClientRect();
      const scale = canvas.width / frame.width;
      const style = getComputedStyle(document.documentElement);
      const probe = document.createElement('canvas').getContext('2d')!;
      // (No named functions in here: the test's compiler would wrap them in a helper the page does not have.)
      const wanted = colours.map((name) => {
        probe.fillStyle = style.getPropertyValue(name).trim();
        probe.fillRect(0, 0, 1, 1);
        return Array.from(probe.getImageData(0, 0, 1, 1).data.slice(0, 3));
      });
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      const top = Math.round((over.top - frame.top) * scale);
      const bottom = Math.round((over.bottom - frame.top) * scale);
      return Array.from({ length: count }, (_, i) => {
        const x = Math.round((over.left - frame.left + ((i + 0.5) * over.width) / count) * scale);
        let n = 0;
        for (let y = top; y < bottom; y++) {
          const at = (y * canvas.width + x) * 4;
          if (
            pixels[at + 3]! > 200 &&
            wanted.some(
              (c) =>
                Math.abs(c[0]! - pixels[at]!) + Math.abs(c[1]! - pixels[at + 1]!) + Math.abs(c[2]! - pixels[at + 2]!) <
                60,
            )
          )
            n++;
        }
        return n;
      });
    },
    [count, colours] as const,
  );

const TOKEN_COLOURS = ['--chunks', '--cache-write', '--model', '--tool'];

const tableRows = (page: Page, id: string) =>
  page
    .locator(`#${id} tbody tr`)
    .evaluateAll((rows) =>
      rows.map((row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent ?? '').slice(0, 6)),
    );

test(
  'usage: an empty state, then tokens and cost per day and hour drawn from real turns ' +
    'and recorded answers, by model and agent, unknown prices as such, budgets, live',
  async () => {
    await withBrowser(
      {
        defaults: { model: 'smart', budget: { daily: 0.01, monthly: 1 } },
        models: [{ model_name: 'smart', model: 'house-model', pricing: PRICING, streaming: { enabled: true } }],
      },
      async (dashboard, browser) => {
        const page = await (await signedIn(browser, dashboard)).newPage();
        const problems = watchViolations(page);
        await open(page, dashboard, 'usage', '#usage-empty');
        assert.is(
          await page.textContent('#usage-empty p'),
          "No model answered in last 30 days. Every answer's tokens are recorded; " +
            "they show here after the agents' next replies.",
        );
        assert.equal(await texts(page, '#usage-budgets .budget-figures'), [
          '$0.00 of $0.0100 (0%)',
          '$0.00 of $1.00 (0%)',
        ]);
        assert.is(await page.locator('.uplot').count(), 0, 'no chart without data');
        await shot(page, 'usage-empty');

        seedAnswer(dashboard, 3, 5000, 1000);
        seedAnswer(dashboard, 2, 2000, 500);
        const chat = await chatSocket(dashboard);
        for (const text of ['one', 'two', 'three']) {
          dashboard.vendor.reply(sse([completionStreamText([{ content: `answer ${text}` }], 'stop', USAGE)]));
          await chat.send(text, 'usage');
        }

        await open(page, dashboard, 'usage/7d', '#usage-tokens canvas');
        assert.is(await page.inputValue('#usage-range'), '7d');
        assert.equal(await texts(page, '#usage-totals .stat-value'), [
          '$0.0098 + unknown',
          '10,600',
          '3,072',
          '2,400',
          '5',
          '5',
        ]);
        assert.match(
          (await page.textContent('#usage-unpriced')) ?? '',
          'No price for fast: answers of this model count in tokens, their cost is unknown (?), not $0.',
        );

        // One column per local day, today last, named in the legend; each figure exact.
        const days = [6, 5, 4, 3, 2, 1, 0].map((n) => daysAgo(n));
        const tokens = await legends(page, 'usage-tokens', 7);
        assert.equal(
          tokens.map((l) => l.when),
          days.map(dayName),
        );
        assert.equal(
          tokens.map((l) => Object.values(l.values).reduce((sum, v) => sum + figure(v), 0)),
          [0, 0, 0, 6000, 2500, 0, 4500],
        );
        assert.equal(tokens[6], {
          when: dayName(days[6]!),
          values: { cached: '3,072 tokens', input: '528 tokens', output: '900 tokens' },
          detail: `${dayName(days[6]!)}: 3 answers in 3 turns, 768 of the output tokens reasoning`,
        });
        assert.equal(tokens[3]?.values, { cached: '0 tokens', input: '5,000 tokens', output: '1,000 tokens' });
        assert.is(tokens[5]?.detail, `${dayName(days[5]!)}: no model answers`);

        // The canvas is drawn: each column's bars as tall as its tokens, in proportion.
        const heights = await painted(page, 'usage-tokens', 7, TOKEN_COLOURS);
        const tallest = heights[3]!;
        assert.ok(tallest > 100, `the tallest column is drawn (${tallest} px)`);
        [0, 0, 0, 6000, 2500, 0, 4500].forEach((total, i) =>
          assert.ok(
            Math.abs(heights[i]! - (tallest * total) / 6000) <= 2,
            `column ${i}: ${heights[i]} px for ${total} tokens (${heights.join(', ')})`,
          ),
        );

        // Hiding a series in the legend restacks the others: today's column loses its cached input.
        await page.click('#usage-tokens .u-series.cached th');
        const uncached = await painted(page, 'usage-tokens', 7, TOKEN_COLOURS);
        assert.ok(
          Math.abs(uncached[6]! - (tallest * 1428) / 6000) <= 2 && uncached[3] === tallest,
          `without cached input: ${uncached.join(', ')}`,
        );
        await page.click('#usage-tokens .u-series.cached th');
        assert.equal(await painted(page, 'usage-tokens', 7, TOKEN_COLOURS), heights);

        // Cost: today priced; the days with answers of the unpriced model unknown and marked with a ?.
        const cost = await legends(page, 'usage-cost', 7);
        assert.equal(
          cost.map((l) => l.values.cost),
          ['$0.00', '$0.00', '$0.00', 'unknown', 'unknown', '$0.00', '$0.0098'],
        );
        const costHeights = await painted(page, 'usage-cost', 7, ['--subagent']);
        assert.ok(
          costHeights[6]! > 100 && costHeights.slice(0, 6).every((px) => px === 0),
          `only today has a cost bar (${costHeights.join(', ')})`,
        );
        const marks = await painted(page, 'usage-cost', 7, ['--warn']);
        assert.ok(marks[3]! > 3 && marks[4]! > 3, `a ? over the unpriced days (${marks.join(', ')})`);
        assert.equal([marks[0], marks[1], marks[2], marks[5], marks[6]], [0, 0, 0, 0, 0], 'no ? elsewhere');
        assert.is(
          await page.textContent('#usage-cost-marks'),
          'A ? over a column: it has answers of a model without a ' +
            'price or without usage figures, whose cost is unknown.',
        );

        assert.equal(await tableRows(page, 'usage-by-model'), [
          ['fast', '2', '7,000', '0', '1,500', 'unknown'],
          ['smart', '3', '3,600', '3,072', '900', '$0.0098'],
        ]);
        assert.equal(await tableRows(page, 'usage-by-agent'), [
          ['helper', '2', '7,000', '0', '1,500', 'unknown'],
          ['main', '3', '3,600', '3,072', '900', '$0.0098'],
        ]);
        assert.equal(await texts(page, '#usage-by-model .share-text'), ['65%', '35%']);
        assert.equal(
          await page
            .locator('#usage-budgets li')
            .evaluateAll((items) =>
              items.map((li) => [
                li.getAttribute('data-period'),
                li.className,
                li.querySelector('.budget-figures')?.textContent,
              ]),
            ),
          [
            ['daily', 'budget warn', '$0.0098 of $0.0100 (97%)'],
            ['monthly', 'budget ok', '$0.0098 of $1.00 (0%)'],
          ],
        );
        await shot(page, 'usage');

        // The last 24 hours, by hour: the recorded answers of days ago are outside it.
        await page.selectOption('#usage-range', '24h');
        await page.waitForFunction(
          () =>
            document.querySelector('#usage-totals .stat-value')?.textContent === '$0.0098' &&
            document.querySelectorAll('#usage-tokens canvas').length === 1,
        );
        const now = new Date();
        const hours = await legends(page, 'usage-tokens', 24);
        assert.is(
          hours.at(-1)?.when,
          `${MONTHS[now.getMonth()]} ${now.getDate()}, ${pad(now.getHours())}:00–${pad((now.getHours() + 1) % 24)}:00`,
        );
        assert.is(
          hours.reduce((sum, l) => sum + Object.values(l.values).reduce((s2, v) => s2 + figure(v), 0), 0),
          4500,
        );
        assert.equal(await texts(page, '#usage-totals .stat-value'), ['$0.0098', '3,600', '3,072', '900', '3', '3']);
        assert.is(await page.locator('#usage-unpriced').count(), 0);
        assert.is(await page.locator('#usage-cost-marks').count(), 0);

        // A turn while the page is open redraws it: the daily budget is now spent.
        dashboard.vendor.reply(sse([completionStreamText([{ content: 'answer four' }], 'stop', USAGE)]));
        await chat.send('four', 'usage');
        chat.socket.close();
        await page.waitForFunction(
          () => document.querySelector('#usage-totals .stat-value')?.textContent === '$0.0131',
        );
        assert.equal(
          await page
            .locator('#usage-budgets li[data-period="daily"]')
            .evaluate((li) => [
              li.className,
              li.querySelector('.budget-figures')?.textContent,
              li.querySelector('.small')?.textContent,
            ]),
          [
            'budget bad',
            '$0.0131 of $0.0100 (130%)',
            'Spent: no new turn of main starts until tomorrow. Set by agents.defaults.budget.daily.',
          ],
        );
        assert.equal(
          (await pointAt(page, 'usage-tokens', 23, 24)).values,
          { cached: '4,096 tokens', input: '704 tokens', output: '1,200 tokens' },
          'the chart is redrawn with the new answer',
        );
        await shot(page, 'usage-24h');
        assert.equal(problems, [], 'no script errors and no CSP violations');

        const phone = await (await signedIn(browser, dashboard, PHONE)).newPage();
        await open(phone, dashboard, 'usage/7d', '#usage-cost canvas');
        assert.is(await overflow(phone), 0, 'usage fits 390 px');
        assert.is(
          await phone.locator('#usage-tokens canvas').evaluate((c) => c.getBoundingClientRect().width),
          await phone.locator('#usage-tokens .chart-frame').evaluate((f) => Math.floor(f.clientWidth)),
          "drawn to the phone's width",
        );
        assert.ok((await painted(phone, 'usage-tokens', 7, TOKEN_COLOURS))[3]! > 100, 'and drawn');
        await shot(phone, 'phone-usage');
      },
    );
  },
);

/** The figures of a stats block as label → value. */
const facts = (page: Page, id: string) =>
  page
    .locator(`#${id} .stat`)
    .evaluateAll((tiles) =>
      Object.fromEntries(
        tiles.map((tile) => [
          tile.querySelector('.stat-label')?.textContent ?? '',
          tile.querySelector('.stat-value')?.textContent ?? '',
        ]),
      ),
    );

/** The tooltip's lines after pointing at `selector`. */
async function tooltipOf(page: Page, selector: string): Promise<string[]> {
  await page.mouse.move(0, 0);
  await page.hover(selector);
  await page.waitForSelector('#tooltip:not([hidden])');
  return texts(page, '#tooltip > div, #tooltip > pre');
}

test(
  "turn view and sessions: each model call's tokens and cost in its tooltip, " +
    "the turn's total cost in its header, each session's and turn's tokens and cost; unknown without a price",
  async () => {
    await withBrowser(
      {
        defaults: { model: 'smart' },
        models: [{ model_name: 'smart', model: 'house-model', pricing: PRICING, streaming: { enabled: true } }],
      },
      async (dashboard, browser) => {
        const chat = await chatSocket(dashboard);
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
                      function: { name: 'list_dir', arguments: '{"path":"."}' },
                    },
                  ],
                },
              ],
              'tool_calls',
              USAGE,
            ),
          ]),
          sse([completionStreamText([{ content: 'Nothing much.' }], 'stop', USAGE)]),
        );
        await chat.send('look around', 'costly');
        chat.socket.close();
        seedUnpricedTurn(dashboard);
        await dashboard.host.log()?.committed();
        const [started] = await events<'turn.started'>(dashboard, 'type=turn.started&order=asc&limit=1');
        const [listed] = await events<'tool.completed'>(dashboard, 'type=tool.completed&limit=1');
        const page = await (await signedIn(browser, dashboard)).newPage();
        const problems = watchViolations(page);

        // Two answers of $0.003264 each: the header sums them as tern replay does.
        await open(page, dashboard, `turn/${started?.turn}`, '#waterfall .wf-row.model');
        const header = await facts(page, 'turn-facts');
        assert.equal(
          [header['model calls'], header.tokens, header.cost],
          ['2', '2,400 in (2,048 cached) / 600 out', '$0.0065'],
        );
        const model = await tooltipOf(page, '#waterfall .wf-row.model >> nth=0');
        assert.match(model[0] ?? '', /^\d+ ms · from \d+ ms to \d+ ms$/);
        assert.equal(model.slice(1), [
          'model smart, call 1',
          'tokens: 1,200 in (1,024 cached) / 300 out',
          'cost: $0.0033',
          'asked for 1 tool call',
        ]);
        const tool = await tooltipOf(page, '#waterfall .wf-row.tool');
        assert.equal(tool.slice(1), [
          'arguments',
          '{\n  "path": "."\n}',
          `result: ${listed?.data.content.length.toLocaleString('en-US')} chars`,
        ]);
        await shot(page, 'turn-cost-tooltip', false);

        await open(page, dashboard, 'turn/t_unpriced', '#waterfall .wf-row.model');
        const unpriced = await facts(page, 'turn-facts');
        assert.equal([unpriced.tokens, unpriced.cost], ['700 in / 30 out', 'unknown']);
        assert.is(await page.getAttribute('#turn-facts .cost', 'class'), 'cost unknown');
        assert.equal((await tooltipOf(page, '#waterfall .wf-row.model')).slice(2), [
          'tokens: 700 in / 30 out',
          'cost: unknown (no price for fast)',
        ]);

        await open(page, dashboard, 'sessions', '#sessions .session-item');
        assert.equal(await texts(page, '#sessions .session-facts'), [
          'agent main · 1 turn · 2 messages · 700 in / 30 out tokens · cost unknown',
          'agent main · from web · 1 turn · 2 messages · 2,400 in / 600 out tokens · cost $0.0065',
        ]);
        await shot(page, 'sessions-cost');
        await page.click(`#sessions .session-item[data-session="${started?.session}"]`);
        await page.waitForSelector('#session-turns li');
        const session = await facts(page, 'session-facts');
        assert.equal([session.tokens, session.cost], ['2,400 in (2,048 cached) / 600 out', '$0.0065']);
        assert.match(
          (await page.textContent('#session-turns .turn-facts')) ?? '',
          / · 2 model calls · 2,400 in \/ 600 out tokens · cost \$0\.0065$/,
        );
        assert.equal(problems, [], 'no script errors and no CSP violations');
      },
    );
  },
);

test.run();

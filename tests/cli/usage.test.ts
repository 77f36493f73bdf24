import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { sessionIdOf } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { builtInPrice, costOf } from '../../store/usage/prices.js';
import { runCliAsync } from '../support/cli.js';
import type { TempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { message } from '../support/vendor-messages.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';
import type { VendorServer } from '../support/vendor-server.js';

/** Runs the CLI without blocking this process, which serves the loopback model meanwhile. Days are UTC days here. */
const tern = (args: string[], env: NodeJS.ProcessEnv) => runCliAsync(args, { ...env, TZ: 'UTC' });

/** A loopback answer that reports cached and reasoning tokens, as OpenAI's chat completions do. */
const cachedAnswer = (content: string) =>
  completion({ content }, 'stop', {
    prompt_tokens: 1200,
    completion_tokens: 300,
    prompt_tokens_details: { cached_tokens: 1024 },
    completion_tokens_details: { reasoning_tokens: 256 },
  } as never);

/** $2 input, $0.50 cached input, $8 output per million: one such answer costs (176×2 + 1024×0.5 + 300×8) / 1e6. */
const PRICED = { input: 2, output: 8, cached_input: 0.5 };
const ONE_ANSWER = 0.003264;

function configure(
  home: TempHome,
  vendor: VendorServer,
  extra: {
    defaults?: Record<string, unknown>;
    agents?: Array<Record<string, unknown>>;
    models?: Array<Record<string, unknown>>;
  } = {},
): void {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'fast', ...extra.defaults }, ...(extra.agents ? { list: extra.agents } : {}) },
      model_list: [
        {
          model_name: 'fast',
          provider: 'openai',
          model: 'house-model',
          api_base: `${vendor.url}/v1`,
          api_keys: ['sk-test-key-0001'],
          pricing: PRICED,
        },
        ...(extra.models ?? []),
      ],
    }),
  );
}

const test = homeAndVendorSuite('cost you can see and cap');

test('tern usage sums tokens and prices them by day, agent, session and model', async ({ home, vendor }) => {
  configure(home, vendor, {
    models: [
      {
        model_name: 'mini',
        provider: 'openai',
        model: 'gpt-4o-mini-2024-07-18',
        api_base: `${vendor.url}/v1`,
        api_keys: ['sk-test-key-0002'],
      },
    ],
  });
  vendor.reply(
    cachedAnswer('one'),
    cachedAnswer('two'),
    completion({ content: 'three' }, 'stop', { prompt_tokens: 1000, completion_tokens: 100 }),
  );
  assert.is((await tern(['agent', '-m', 'a', '--session', 'alpha'], home.env)).code, 0);
  assert.is((await tern(['agent', '-m', 'b', '--session', 'beta'], home.env)).code, 0);
  assert.is((await tern(['agent', '-m', 'c', '--session', 'beta', '--model', 'mini'], home.env)).code, 0);
  const mini = costOf(
    { input: 1000, output: 100, cached: 0, cache_write: 0, reasoning: 0 },
    builtInPrice('gpt-4o-mini')!,
  );
  assert.is(Math.round(mini * 1e6) / 1e6, 0.00021);
  const byModel = JSON.parse((await tern(['usage', '--by', 'model', '--json'], home.env)).stdout) as {
    rows: unknown[];
    total: unknown;
    unpriced_models: string[];
  };
  assert.equal(byModel.rows, [
    {
      key: 'fast',
      turns: 2,
      calls: 2,
      input_tokens: 2400,
      cached_input_tokens: 2048,
      cache_write_input_tokens: 0,
      output_tokens: 600,
      reasoning_tokens: 512,
      cost_usd: 2 * ONE_ANSWER,
      unpriced_calls: 0,
      unreported_calls: 0,
    },
    {
      key: 'mini',
      turns: 1,
      calls: 1,
      input_tokens: 1000,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: 100,
      reasoning_tokens: 0,
      cost_usd: 0.00021,
      unpriced_calls: 0,
      unreported_calls: 0,
    },
  ]);
  assert.equal(byModel.total, {
    key: 'total',
    turns: 3,
    calls: 3,
    input_tokens: 3400,
    cached_input_tokens: 2048,
    cache_write_input_tokens: 0,
    output_tokens: 700,
    reasoning_tokens: 512,
    cost_usd: 2 * ONE_ANSWER + 0.00021,
    unpriced_calls: 0,
    unreported_calls: 0,
  });
  assert.equal(byModel.unpriced_models, []);
  const bySession = JSON.parse((await tern(['usage', '--by', 'session', '--json'], home.env)).stdout) as {
    rows: Array<{ key: string; calls: number }>;
  };
  const id = (name: string) => sessionIdOf(`v=1|agent=main|channel=cli|account=default|chat=direct:${name}`);
  assert.equal(
    bySession.rows.map((r) => [r.key, r.calls]).sort(),
    [
      [id('alpha'), 1],
      [id('beta'), 2],
    ].sort(),
  );
  const byAgent = JSON.parse((await tern(['usage', '--by', 'agent', '--json'], home.env)).stdout) as {
    rows: Array<{ key: string; calls: number }>;
  };
  assert.equal(
    byAgent.rows.map((r) => [r.key, r.calls]),
    [['main', 3]],
  );
  const today = new Date().toISOString().slice(0, 10);
  const text = await tern(['usage'], home.env);
  assert.equal([text.code, text.stderr], [0, '']);
  assert.equal(
    text.stdout.split('\n').map((l) => l.replace(/\s+/g, ' ')),
    [
      'day turns calls input cached output reasoning cost',
      `${today} 3 3 3,400 2,048 700 512 $0.0067`,
      'total 3 3 3,400 2,048 700 512 $0.0067',
      '',
    ],
  );
  const bySessionText = (await tern(['usage', '--by', 'session'], home.env)).stdout;
  assert.match(bySessionText, /v=1\|agent=main\|channel=cli\|account=default\|chat=direct:beta\s+2\s+2/);
  const none = JSON.parse((await tern(['usage', '--since', '2999-01-01', '--json'], home.env)).stdout) as {
    rows: unknown[];
    total: { calls: number };
  };
  assert.equal([none.rows, none.total.calls], [[], 0]);
  const week = JSON.parse((await tern(['usage', '--since', '7d', '--json'], home.env)).stdout) as {
    total: { calls: number };
  };
  assert.is(week.total.calls, 3);
});

test('a model without a price is counted in tokens and named, never priced at zero', async ({ home, vendor }) => {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'local' } },
      model_list: [
        {
          model_name: 'local',
          provider: 'openai',
          model: 'my-own-model',
          api_base: `${vendor.url}/v1`,
          api_keys: ['sk-test-key-0001'],
        },
      ],
    }),
  );
  vendor.reply(completion({ content: 'hi' }));
  assert.is((await tern(['agent', '-m', 'x'], home.env)).code, 0);
  const text = await tern(['usage', '--by', 'model'], home.env);
  assert.match(text.stdout, /local\s+1\s+1\s+12\s+0\s+5\s+0\s+\?\n/);
  assert.is(
    text.stderr,
    'tern: note: no price for local: their answers are not in the cost (?); ' +
      'set model_list[].pricing {input, output, cached_input, cache_write_input} in US dollars per million tokens\n',
  );
});

test('prompt-cache writes are priced apart: Anthropic bills them at 1.25× input, reads at a tenth', async ({
  home,
  vendor,
}) => {
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      agents: { defaults: { model: 'sonnet' } },
      model_list: [
        {
          model_name: 'sonnet',
          provider: 'anthropic',
          model: 'claude-sonnet-4-5-20250929',
          api_base: `${vendor.url}/v1`,
          api_keys: ['sk-ant-test-0001'],
        },
      ],
    }),
  );
  vendor.reply(
    message([{ type: 'text', text: 'hi' }], 'end_turn', {
      input_tokens: 100,
      cache_creation_input_tokens: 4000,
      cache_read_input_tokens: 2000,
      output_tokens: 50,
    }),
  );
  assert.is((await tern(['agent', '-m', 'x'], home.env)).code, 0);
  const usage = JSON.parse((await tern(['usage', '--by', 'model', '--json'], home.env)).stdout) as {
    total: Record<string, number | string>;
  };
  // $3 input, $0.30 cached read, $3.75 cache write, $15 output per million tokens.
  const cost = (100 * 3 + 2000 * 0.3 + 4000 * 3.75 + 50 * 15) / 1e6;
  const turn = (
    JSON.parse((await tern(['log', '--type', 'turn.started', '--json'], home.env)).stdout.trim()) as { turn: string }
  ).turn;
  assert.is(
    (await tern(['replay', turn], home.env)).stdout.trim().split('\n').at(-1),
    `tokens: in 6,100 (2,000 cached, 4,000 written to the cache), out 50 (0 reasoning); cost ${'$'}0.0167 (sonnet)`,
  );
  assert.equal(usage.total, {
    key: 'total',
    turns: 1,
    calls: 1,
    input_tokens: 6100,
    cached_input_tokens: 2000,
    cache_write_input_tokens: 4000,
    output_tokens: 50,
    reasoning_tokens: 0,
    cost_usd: Math.round(cost * 1e6) / 1e6,
    unpriced_calls: 0,
    unreported_calls: 0,
  });
});

test('tern usage with a bad --by or --since is a usage error', async ({ home }) => {
  const by = await tern(['usage', '--by', 'week'], home.env);
  assert.equal(
    [by.code, by.stderr],
    [2, 'tern: wrong usage (--by takes day, hour, agent, session, model, got "week"). Run `tern help usage`.\n'],
  );
  const since = await tern(['usage', '--since', 'yesterday'], home.env);
  assert.equal(
    [since.code, since.stderr],
    [
      2,
      'tern: wrong usage (--since: "yesterday" is not a date (allowed: ' +
        '2026-11-01, an ISO time, or 7d, 12h, 30m)). Run `tern help usage`.\n',
    ],
  );
});

test("a turn's usage is in the log, cached and reasoning tokens too; tern replay shows its tokens and cost", async ({
  home,
  vendor,
}) => {
  configure(home, vendor);
  vendor.reply(cachedAnswer('pong'));
  const run = await tern(['agent', '-m', 'ping', '--json'], home.env);
  const log = EventLog.open(home.sessions, { readOnly: true });
  const responded = log.read({ type: 'provider.responded' });
  log.close();
  assert.equal(
    responded.map((e) => e.type === 'provider.responded' && e.data.usage),
    [{ input_tokens: 1200, output_tokens: 300, cached_input_tokens: 1024, reasoning_tokens: 256 }],
  );
  const events = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; turn: string });
  const turn = events.find((e) => e.type === 'turn.started')!.turn;
  const text = await tern(['replay', turn], home.env);
  assert.is(
    text.stdout.trim().split('\n').at(-1),
    'tokens: in 1,200 (1,024 cached), out 300 (256 reasoning); cost $0.0033 (fast)',
  );
  const json = JSON.parse((await tern(['replay', turn, '--json'], home.env)).stdout) as { usage: unknown };
  assert.equal(json.usage, {
    turns: 1,
    calls: 1,
    input_tokens: 1200,
    cached_input_tokens: 1024,
    cache_write_input_tokens: 0,
    output_tokens: 300,
    reasoning_tokens: 256,
    cost_usd: ONE_ANSWER,
    unpriced_calls: 0,
    unreported_calls: 0,
    models: ['fast'],
    unpriced_models: [],
  });
});

const budgetEvents = (home: TempHome) => {
  const log = EventLog.open(home.sessions, { readOnly: true });
  const events = log.read({ type: 'budget.*' }).map((e) => ({ type: e.type, agent: e.agent, data: e.data }));
  log.close();
  return events;
};

test('at 80% of a daily budget the reply says so, once', async ({ home, vendor }) => {
  configure(home, vendor, { defaults: { budget: { daily: 0.004 } } });
  vendor.reply(cachedAnswer('first'), completion({ content: 'second' }), completion({ content: 'third' }));
  assert.equal((await tern(['agent', '-m', 'one'], home.env)).stdout, 'first\n');
  assert.equal(
    (await tern(['agent', '-m', 'two'], home.env)).stdout,
    'second\n\n(Budget: agent main has spent $0.0033 of its $0.0040 daily budget (81%).)\n',
  );
  assert.equal((await tern(['agent', '-m', 'three'], home.env)).stdout, 'third\n');
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(budgetEvents(home), [
    {
      type: 'budget.warned',
      agent: 'main',
      data: { period: 'daily', span: today, limit_usd: 0.004, spent_usd: ONE_ANSWER },
    },
  ]);
});

test('a spent daily budget stops the next turn before it starts, with a clear message and no model call', async ({
  home,
  vendor,
}) => {
  configure(home, vendor, { defaults: { budget: { daily: 0.004 } } });
  vendor.reply(cachedAnswer('first'), cachedAnswer('second'), cachedAnswer('never sent'));
  assert.is((await tern(['agent', '-m', 'one'], home.env)).code, 0);
  assert.is((await tern(['agent', '-m', 'two'], home.env)).code, 0);
  const third = await tern(['agent', '-m', 'three'], home.env);
  assert.equal(
    [third.code, third.stdout],
    [
      1,
      'The daily budget of agent main is spent: $0.0065 of $0.0040 today. ' +
        'No new turn starts until tomorrow; to go on now, raise agents.defaults.budget.daily in the config.\n',
    ],
  );
  assert.is(vendor.requests.length, 2, 'the refused turn called no model');
  assert.equal(budgetEvents(home).at(-1), {
    type: 'budget.reached',
    agent: 'main',
    data: { period: 'daily', span: new Date().toISOString().slice(0, 10), limit_usd: 0.004, spent_usd: 2 * ONE_ANSWER },
  });
});

test("an agent's own monthly budget wins over the defaults", async ({ home, vendor }) => {
  configure(home, vendor, {
    defaults: { budget: { daily: 100 } },
    agents: [{ id: 'main', default: true, budget: { monthly: 0.003 } }],
  });
  vendor.reply(cachedAnswer('first'));
  assert.is((await tern(['agent', '-m', 'one'], home.env)).code, 0);
  const second = await tern(['agent', '-m', 'two'], home.env);
  assert.equal(
    [second.code, second.stdout],
    [
      1,
      'The monthly budget of agent main is spent: $0.0033 of $0.0030 this month. ' +
        'No new turn starts until next month; to go on now, raise agents.list[0].budget.monthly in the config.\n',
    ],
  );
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionDetail, SessionRow, TurnView } from '../../bus/api-shapes.js';
import { call, errorBody } from '../launcher/launcher-harness.js';
import { runCliAsync } from '../support/cli.js';
import { chatSocket, seedUnpricedTurn, startDashboard, type Dashboard } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';

const cachedUsage = {
  prompt_tokens: 1200,
  completion_tokens: 300,
  prompt_tokens_details: { cached_tokens: 1024 },
  completion_tokens_details: { reasoning_tokens: 256 },
} as never;

test('GET /api/usage sums the answers of the log as tern usage does; a bad query is a 400 naming it', async () => {
  const dashboard = await startDashboard();
  try {
    const chat = await chatSocket(dashboard);
    dashboard.vendor.reply(sse([completionStreamText([{ content: 'pong' }], 'stop', cachedUsage)]));
    await chat.send('ping');
    chat.socket.close();
    const usage = await call(dashboard.launcher, '/api/usage?by=model', { cookie: dashboard.cookie });
    assert.is(usage.status, 200);
    const row = {
      turns: 1,
      calls: 1,
      input_tokens: 1200,
      cached_input_tokens: 1024,
      cache_write_input_tokens: 0,
      output_tokens: 300,
      reasoning_tokens: 256,
      cost_usd: 0,
      unpriced_calls: 1,
      unreported_calls: 0,
    };
    assert.equal(usage.body, {
      by: 'model',
      currency: 'USD',
      rows: [{ key: 'fast', ...row }],
      total: { key: 'total', ...row },
      unpriced_models: ['fast'],
      budgets: [],
    });
    const future = await call(dashboard.launcher, '/api/usage?since=2999-01-01', { cookie: dashboard.cookie });
    assert.equal((future.body as { rows: unknown[] }).rows, []);
    const bad = await call(dashboard.launcher, '/api/usage?by=week', { cookie: dashboard.cookie });
    assert.equal(
      [bad.status, bad.body],
      [400, errorBody('bad_query', 'by must be one of day, hour, agent, session, model')],
    );
    const badSince = await call(dashboard.launcher, '/api/usage?since=soon', { cookie: dashboard.cookie });
    assert.equal(
      [badSince.status, badSince.body],
      [400, errorBody('bad_query', 'since: "soon" is not a date (allowed: 2026-11-01, an ISO time, or 7d, 12h, 30m)')],
    );
    const anonymous = await call(dashboard.launcher, '/api/usage');
    assert.is(anonymous.status, 401);
  } finally {
    await dashboard.close();
  }
});

test(
  'GET /api/usage?by=hour sums by local hour, ' +
    'and every configured budget says what it has spent today and this month',
  async () => {
    const pricing = { input: 2, output: 8, cached_input: 0.5 };
    const dashboard = await startDashboard({
      defaults: { model: 'smart', budget: { daily: 0.01, monthly: 1 } },
      models: [{ model_name: 'smart', model: 'house-model', pricing, streaming: { enabled: true } }],
    });
    try {
      const chat = await chatSocket(dashboard);
      dashboard.vendor.reply(
        sse([completionStreamText([{ content: 'pong' }], 'stop', cachedUsage)]),
        sse([completionStreamText([{ content: 'pong' }], 'stop', cachedUsage)]),
      );
      await chat.send('ping');
      await chat.send('ping again');
      chat.socket.close();
      const now = new Date();
      const hour =
        `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-` +
        `${String(now.getDate()).padStart(2, '0')} ${String(now.getHours()).padStart(2, '0')}:00`;
      const usage = await call(dashboard.launcher, '/api/usage?by=hour&since=1h', { cookie: dashboard.cookie });
      // (1200 − 1024) × $2 + 1024 × $0.50 + 300 × $8 per million tokens, twice.
      const row = {
        turns: 2,
        calls: 2,
        input_tokens: 2400,
        cached_input_tokens: 2048,
        cache_write_input_tokens: 0,
        output_tokens: 600,
        reasoning_tokens: 512,
        cost_usd: 0.006528,
        unpriced_calls: 0,
        unreported_calls: 0,
      };
      const body = usage.body as {
        by: string;
        rows: unknown[];
        total: unknown;
        unpriced_models: string[];
        budgets: unknown[];
      };
      const span = hour.slice(0, 10);
      assert.equal(
        [body.by, body.rows, body.total, body.unpriced_models],
        ['hour', [{ key: hour, ...row }], { key: 'total', ...row }, []],
      );
      assert.equal(body.budgets, [
        {
          agent: 'main',
          period: 'daily',
          span,
          limit_usd: 0.01,
          spent_usd: 0.006528,
          source: 'agents.defaults.budget.daily',
        },
        {
          agent: 'main',
          period: 'monthly',
          span: span.slice(0, 7),
          limit_usd: 1,
          spent_usd: 0.006528,
          source: 'agents.defaults.budget.monthly',
        },
      ]);
    } finally {
      await dashboard.close();
    }
  },
);

const get = async <T>(dashboard: Dashboard, path: string): Promise<T> =>
  (await call(dashboard.launcher, path, { cookie: dashboard.cookie })).body as T;

test(
  "the turn view, the sessions and a session's turns give tokens and cost as tern replay does: " +
    'per model call, per turn, per session; unknown for a model without a price; an edited price applies at once',
  async () => {
    const pricing = { input: 2, output: 8, cached_input: 0.5 };
    const dashboard = await startDashboard({
      defaults: { model: 'smart' },
      models: [{ model_name: 'smart', model: 'house-model', pricing, streaming: { enabled: true } }],
    });
    try {
      const chat = await chatSocket(dashboard);
      const call1 = {
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'list_dir', arguments: '{"path":"."}' } },
        ],
      };
      dashboard.vendor.reply(
        sse([completionStreamText([call1], 'tool_calls', cachedUsage)]),
        sse([completionStreamText([{ content: 'done' }], 'stop', cachedUsage)]),
      );
      await chat.send('look around', 'priced');
      chat.socket.close();
      seedUnpricedTurn(dashboard);
      await dashboard.host.log()?.committed();
      const [started] = (
        await get<{ events: Array<{ turn: string; session: string }> }>(
          dashboard,
          '/api/events?type=turn.started&order=asc',
        )
      ).events;
      const turn = started?.turn ?? '';

      // Each answer: (1200 − 1024) × $2 + 1024 × $0.50 + 300 × $8 per million tokens = $0.003264; two in the turn.
      const view = await get<TurnView>(dashboard, `/api/turns/${turn}`);
      const answer = {
        input_tokens: 1200,
        cached_input_tokens: 1024,
        output_tokens: 300,
        reasoning_tokens: 256,
        cost_usd: 0.003264,
      };
      assert.equal(
        view.spans.flatMap((s) => (s.kind === 'model' ? [[s.label, s.usage]] : [])),
        [
          ['model call 1', answer],
          ['model call 2', answer],
        ],
      );
      const total = {
        turns: 1,
        calls: 2,
        input_tokens: 2400,
        cached_input_tokens: 2048,
        cache_write_input_tokens: 0,
        output_tokens: 600,
        reasoning_tokens: 512,
        cost_usd: 0.006528,
        unpriced_calls: 0,
        unreported_calls: 0,
        models: ['smart'],
        unpriced_models: [],
      };
      assert.equal(view.usage, total);
      const replay = await runCliAsync(['replay', turn, '--json'], dashboard.home.env);
      assert.equal(
        (JSON.parse(replay.stdout) as { usage: unknown }).usage,
        view.usage,
        'the same projection as tern replay',
      );

      const unpriced = await get<TurnView>(dashboard, '/api/turns/t_unpriced');
      assert.equal(
        unpriced.spans.flatMap((s) => (s.kind === 'model' ? [s.usage] : [])),
        [{ input_tokens: 700, cached_input_tokens: 0, output_tokens: 30, reasoning_tokens: 0 }],
      );
      assert.equal(unpriced.usage, {
        turns: 1,
        calls: 1,
        input_tokens: 700,
        cached_input_tokens: 0,
        cache_write_input_tokens: 0,
        output_tokens: 30,
        reasoning_tokens: 0,
        cost_usd: 0,
        unpriced_calls: 1,
        unreported_calls: 0,
        models: ['fast'],
        unpriced_models: ['fast'],
      });

      const usageOf = (rows: SessionRow[]) =>
        rows.map((r) => [
          r.session,
          r.model_calls,
          r.input_tokens,
          r.cached_input_tokens,
          r.output_tokens,
          r.cost_usd,
          r.unpriced_calls,
        ]);
      const { sessions } = await get<{ sessions: SessionRow[] }>(dashboard, '/api/sessions');
      assert.equal(usageOf(sessions), [
        ['sk_v1_unpriced', 1, 700, 0, 30, 0, 1],
        [started?.session, 2, 2400, 2048, 600, 0.006528, 0],
      ]);
      const detail = await get<SessionDetail>(dashboard, `/api/sessions/${started?.session}`);
      assert.equal(detail.about, sessions[1]);
      assert.equal(
        detail.turns.map((t) => [t.turn, t.model_calls, t.input_tokens, t.output_tokens, t.cost_usd, t.unpriced_calls]),
        [[turn, 2, 2400, 600, 0.006528, 0]],
      );

      // Input at $4: (176 × 4 + 1024 × 0.5 + 300 × 8) / 1e6 = $0.003616 an answer, for what was recorded before too.
      const path = join(dashboard.home.home, 'config.json');
      const config = JSON.parse(readFileSync(path, 'utf8')) as {
        model_list: Array<{ model_name: string; pricing?: unknown }>;
      };
      config.model_list.find((m) => m.model_name === 'smart')!.pricing = { ...pricing, input: 4 };
      writeFileSync(path, JSON.stringify(config, null, 2));
      assert.equal(usageOf((await get<{ sessions: SessionRow[] }>(dashboard, '/api/sessions')).sessions)[1], [
        started?.session,
        2,
        2400,
        2048,
        600,
        0.007232,
        0,
      ]);
      assert.is((await get<TurnView>(dashboard, `/api/turns/${turn}`)).usage.cost_usd, 0.007232);
    } finally {
      await dashboard.close();
    }
  },
);

test.run();

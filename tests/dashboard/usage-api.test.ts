import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, errorBody } from '../launcher/launcher-harness.js';
import { chatSocket, startDashboard } from '../support/dashboard-harness.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';

const cachedUsage = { prompt_tokens: 1200, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 256 } } as never;

test('GET /api/usage sums the answers of the log as tern usage does; a bad query is a 400 naming it', async () => {
  const dashboard = await startDashboard();
  try {
    const chat = await chatSocket(dashboard);
    dashboard.vendor.reply(sse([completionStreamText([{ content: 'pong' }], 'stop', cachedUsage)]));
    await chat.send('ping');
    chat.socket.close();
    const usage = await call(dashboard.launcher, '/api/usage?by=model', { cookie: dashboard.cookie });
    assert.is(usage.status, 200);
    const row = { turns: 1, calls: 1, input_tokens: 1200, cached_input_tokens: 1024, cache_write_input_tokens: 0, output_tokens: 300, reasoning_tokens: 256, cost_usd: 0, unpriced_calls: 1 };
    assert.equal(usage.body, { by: 'model', currency: 'USD', rows: [{ key: 'fast', ...row }], total: { key: 'total', ...row }, unpriced_models: ['fast'], budgets: [] });
    const future = await call(dashboard.launcher, '/api/usage?since=2999-01-01', { cookie: dashboard.cookie });
    assert.equal((future.body as { rows: unknown[] }).rows, []);
    const bad = await call(dashboard.launcher, '/api/usage?by=week', { cookie: dashboard.cookie });
    assert.equal([bad.status, bad.body], [400, errorBody('bad_query', 'by must be one of day, hour, agent, session, model')]);
    const badSince = await call(dashboard.launcher, '/api/usage?since=soon', { cookie: dashboard.cookie });
    assert.equal([badSince.status, badSince.body], [400, errorBody('bad_query', 'since: "soon" is not a date (allowed: 2026-11-01, an ISO time, or 7d, 12h, 30m)')]);
    const anonymous = await call(dashboard.launcher, '/api/usage');
    assert.is(anonymous.status, 401);
  } finally {
    await dashboard.close();
  }
});

test('GET /api/usage?by=hour sums by local hour, and every configured budget says what it has spent today and this month', async () => {
  const pricing = { input: 2, output: 8, cached_input: 0.5 };
  const dashboard = await startDashboard({
    defaults: { model: 'smart', budget: { daily: 0.01, monthly: 1 } },
    models: [{ model_name: 'smart', model: 'house-model', pricing, streaming: { enabled: true } }],
  });
  try {
    const chat = await chatSocket(dashboard);
    dashboard.vendor.reply(sse([completionStreamText([{ content: 'pong' }], 'stop', cachedUsage)]), sse([completionStreamText([{ content: 'pong' }], 'stop', cachedUsage)]));
    await chat.send('ping');
    await chat.send('ping again');
    chat.socket.close();
    const now = new Date();
    const hour = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')} ${String(now.getHours()).padStart(2, '0')}:00`;
    const usage = await call(dashboard.launcher, '/api/usage?by=hour&since=1h', { cookie: dashboard.cookie });
    // (1200 − 1024) × $2 + 1024 × $0.50 + 300 × $8 per million tokens, twice.
    const row = { turns: 2, calls: 2, input_tokens: 2400, cached_input_tokens: 2048, cache_write_input_tokens: 0, output_tokens: 600, reasoning_tokens: 512, cost_usd: 0.006528, unpriced_calls: 0 };
    const body = usage.body as { by: string; rows: unknown[]; total: unknown; unpriced_models: string[]; budgets: unknown[] };
    const span = hour.slice(0, 10);
    assert.equal([body.by, body.rows, body.total, body.unpriced_models], ['hour', [{ key: hour, ...row }], { key: 'total', ...row }, []]);
    assert.equal(body.budgets, [
      { agent: 'main', period: 'daily', span, limit_usd: 0.01, spent_usd: 0.006528, source: 'agents.defaults.budget.daily' },
      { agent: 'main', period: 'monthly', span: span.slice(0, 7), limit_usd: 1, spent_usd: 0.006528, source: 'agents.defaults.budget.monthly' },
    ]);
  } finally {
    await dashboard.close();
  }
});

test.run();

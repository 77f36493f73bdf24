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
    assert.equal(usage.body, { by: 'model', rows: [{ key: 'fast', ...row }], total: { key: 'total', ...row }, unpriced_models: ['fast'] });
    const future = await call(dashboard.launcher, '/api/usage?since=2999-01-01', { cookie: dashboard.cookie });
    assert.equal((future.body as { rows: unknown[] }).rows, []);
    const bad = await call(dashboard.launcher, '/api/usage?by=week', { cookie: dashboard.cookie });
    assert.equal([bad.status, bad.body], [400, errorBody('bad_query', 'by must be one of day, agent, session, model')]);
    const badSince = await call(dashboard.launcher, '/api/usage?since=soon', { cookie: dashboard.cookie });
    assert.equal([badSince.status, badSince.body], [400, errorBody('bad_query', 'since: "soon" is not a date (allowed: 2026-11-01, an ISO time, or 7d, 12h, 30m)')]);
    const anonymous = await call(dashboard.launcher, '/api/usage');
    assert.is(anonymous.status, 401);
  } finally {
    await dashboard.close();
  }
});

test.run();

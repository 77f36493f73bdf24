import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, errorBody } from '../launcher/launcher-harness.js';
import { startDashboard } from '../support/dashboard-harness.js';
import { completion } from '../support/vendor-chat-completions.js';
import { json } from '../support/vendor-server.js';

const form = (apiBase: string) => ({
  model_name: 'first',
  provider: 'openai',
  model: 'gpt-test',
  api_base: apiBase,
  api_key: 'sk-first-key-00000001',
});

test(
  'first run: with no config the model form saves the model, ' + 'restarts the gateway and tests it with one request',
  async () => {
    const dashboard = await startDashboard({ configured: false });
    const file = join(dashboard.home.home, 'config.json');
    try {
      assert.equal((await call(dashboard.launcher, '/api/models', { cookie: dashboard.cookie })).body, { models: [] });
      assert.is(existsSync(file), false);
      dashboard.vendor.reply(completion({ content: 'OK' }));
      const reply = await call(dashboard.launcher, '/api/onboarding/model', {
        cookie: dashboard.cookie,
        json: form(`${dashboard.vendor.url}/v1`),
      });
      assert.equal([reply.status, reply.body], [200, { saved: true, test: { ok: true, reply: 'OK' } }]);
      const saved = JSON.parse(readFileSync(file, 'utf8')) as {
        agents: { defaults: { model: string } };
        model_list: Array<{ model_name: string; api_keys: string[] }>;
      };
      assert.equal(
        [saved.agents.defaults.model, saved.model_list.map((m) => [m.model_name, m.api_keys])],
        ['first', [['first', ['sk-first-key-00000001']]]],
      );
      const models = (await call(dashboard.launcher, '/api/models', { cookie: dashboard.cookie })).body as {
        models: Array<{ model_name: string }>;
      };
      assert.equal(
        models.models.map((m) => m.model_name),
        ['first'],
      );
      assert.is(dashboard.vendor.requests.length, 1);
    } finally {
      await dashboard.close();
    }
  },
);

test('first run: a bad field is refused by name, and a refused key is reported as a failed test', async () => {
  const dashboard = await startDashboard({ configured: false });
  try {
    const cases: Array<[Record<string, string>, string]> = [
      [
        { ...form('http://127.0.0.1:1/v1'), api_base: 'not a url' },
        'api_base must be a URL such as https://api.openai.com/v1',
      ],
      [{ ...form('http://127.0.0.1:1/v1'), api_key: '  ' }, 'api_key must not be empty'],
      [{ ...form('http://127.0.0.1:1/v1'), model_name: 'a b' }, 'model_name may hold letters, digits, _ . -'],
    ];
    for (const [body, message] of cases) {
      const reply = await call(dashboard.launcher, '/api/onboarding/model', { cookie: dashboard.cookie, json: body });
      assert.equal([reply.status, reply.body], [400, errorBody('invalid_body', message)], message);
    }
    dashboard.vendor.reply(
      json(
        { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
        401,
      ),
    );
    const refused = await call(dashboard.launcher, '/api/onboarding/model', {
      cookie: dashboard.cookie,
      json: form(`${dashboard.vendor.url}/v1`),
    });
    const test = (refused.body as { test: { ok: boolean; code: string } }).test;
    assert.equal([refused.status, test.ok, test.code], [200, false, 'auth']);
  } finally {
    await dashboard.close();
  }
});

test.run();

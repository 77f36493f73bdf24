import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { call } from '../launcher/launcher-harness.js';
import { repoRoot, ternEntry } from '../support/cli.js';
import { API_KEY, chatSocket, startDashboard } from '../support/dashboard-harness.js';

/** How the configured key prints everywhere else (`tern status`, the router's messages). */
const MASKED = 'sk-t…01';

test(
  'a vendor 401 that quotes the key: the chat, the events (/api/events, ' +
    'tern log --json) and the gateway log show it masked',
  async () => {
    const dashboard = await startDashboard();
    try {
      // Some vendors answer a bad key by quoting it whole.
      const body = JSON.stringify({
        error: {
          message: `Incorrect API key provided: ${API_KEY}. You can find your API key at https://vendor.example/keys.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      dashboard.vendor.reply({ status: 401, headers: { 'content-type': 'application/json' }, chunks: [body] });
      const chat = await chatSocket(dashboard);
      const frames = await chat.send('hello');
      chat.socket.close();
      const shown = JSON.stringify(frames);
      assert.match(
        shown,
        `Sorry, the model could not be reached: model entry \\"fast\\" (openai/gpt-test) ` +
          `key 1 of 1 (${MASKED}) was refused: HTTP 401: Incorrect API key provided: ${MASKED}.`,
      );
      assert.not.match(shown, API_KEY);

      const api = (await call(dashboard.launcher, '/api/events?limit=500', { cookie: dashboard.cookie })).body as {
        events: Envelope[];
      };
      const types = new Set(api.events.map((e) => e.type));
      for (const type of ['provider.failed', 'turn.failed', 'message.sent'] as const)
        assert.ok(types.has(type), `${type} is among the events`);
      const apiText = JSON.stringify(api.events);
      assert.not.match(apiText, API_KEY);
      assert.match(apiText, `Incorrect API key provided: ${MASKED}.`);

      const log = spawnSync(process.execPath, [...ternEntry, 'log', '--json', '--limit', '500'], {
        cwd: repoRoot,
        env: dashboard.home.env,
        encoding: 'utf8',
      });
      assert.is(log.status, 0, log.stderr);
      assert.not.match(log.stdout, API_KEY);
      assert.match(log.stdout, `Incorrect API key provided: ${MASKED}.`);

      assert.not.match(readFileSync(join(dashboard.home.home, 'logs', 'gateway.log'), 'utf8'), API_KEY);
    } finally {
      await dashboard.close();
    }
  },
);
test.run();

// The config API the editor uses: the schema it draws, checks worded as `tern config validate` words them, and
// masked secrets that stay the saved ones when entries move.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigCheck, ConfigSchemaReply } from '../../bus/api-shapes.js';
import { runCliAsync } from '../support/cli.js';
import { API_KEY, startDashboard } from '../support/dashboard-harness.js';
import { call } from '../launcher/launcher-harness.js';

const OTHER_KEY = 'sk-test-key-0002';

test('the schema names secrets write-only and says what each edited field is', async () => {
  const dashboard = await startDashboard({});
  try {
    const reply = await call(dashboard.launcher, '/api/config/schema', { cookie: dashboard.cookie });
    const { schema, channel_kinds } = reply.body as ConfigSchemaReply;
    const model = schema.properties?.model_list?.items?.properties ?? {};
    assert.equal(model.api_keys, {
      type: 'array',
      items: { type: 'string', writeOnly: true },
      description: 'API keys, used in turn; shown masked, type a new one to replace',
    });
    assert.equal(schema.properties?.gateway?.properties?.port, {
      default: 18790,
      type: 'integer',
      minimum: 1,
      maximum: 65535,
      description: "Port of the gateway's health server (/health, /ready)",
    });
    assert.equal(channel_kinds.telegram?.properties?.token, {
      description: 'Bot token from @BotFather (123456:ABC…)',
      type: 'string',
      writeOnly: true,
    });
  } finally {
    await dashboard.close();
  }
});

test('a check names the problems `tern config validate` names for the same file', async () => {
  const dashboard = await startDashboard({});
  try {
    const path = join(dashboard.home.home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.model_list[0].request_timeout = 5000;
    config.gateway.log_level = 'loud';
    const reply = await call(dashboard.launcher, '/api/config/check', { cookie: dashboard.cookie, json: { config } });
    const broken = join(dashboard.home.home, 'broken.json');
    writeFileSync(broken, JSON.stringify(config));
    const cli = await runCliAsync(['config', 'validate', broken, '--json'], dashboard.home.env);
    const { problems } = JSON.parse(cli.stdout) as { problems: string[] };
    assert.equal(problems.length, 2);
    assert.equal(reply.body as ConfigCheck, { ok: false, problems, warnings: [] });
  } finally {
    await dashboard.close();
  }
});

test('removing the first model keeps the second one its saved key, sent back masked', async () => {
  const dashboard = await startDashboard({ models: [{ model_name: 'other', model: 'gpt-other' }] });
  try {
    const path = join(dashboard.home.home, 'config.json');
    const shown = (await call(dashboard.launcher, '/api/config', { cookie: dashboard.cookie })).body as {
      config: { model_list: Array<{ model_name: string; api_keys: string[] }>; agents: unknown };
    };
    const [, other] = shown.config.model_list;
    assert.equal(other?.api_keys, ['sk-t…02']);
    const config = { ...shown.config, model_list: [other], agents: { defaults: { model: 'other' } } };
    const saved = await call(dashboard.launcher, '/api/config', {
      method: 'PUT',
      cookie: dashboard.cookie,
      json: { config },
    });
    assert.is(saved.status, 200, saved.text);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    assert.equal(written.model_list[0].api_keys, [OTHER_KEY]);
    assert.not.ok(saved.text.includes(OTHER_KEY) || saved.text.includes(API_KEY), 'the answer holds no key');
  } finally {
    await dashboard.close();
  }
});

test("a WhatsApp channel's pairing QR code is served for its form until there is none", async () => {
  const channels = { wa: { enabled: false, type: 'whatsapp', settings: { use_native: true } } };
  const dashboard = await startDashboard({ channels });
  try {
    const qr = (name: string) => call(dashboard.launcher, `/api/channels/${name}/qr`, { cookie: dashboard.cookie });
    const none = await qr('wa');
    assert.equal([none.status, (none.body as { error: { code: string } }).error.code], [404, 'qr_none']);
    const dir = join(dashboard.home.home, 'whatsapp', 'wa');
    mkdirSync(dir, { recursive: true });
    const code = { data_url: 'data:image/png;base64,iVBORw0KGgo=', at: '2026-11-28T21:00:00.000Z' };
    writeFileSync(join(dir, 'qr.json'), JSON.stringify(code));
    const shown = await qr('wa');
    assert.equal([shown.status, shown.body], [200, code]);
    const other = await qr('web');
    assert.equal([other.status, (other.body as { error: { code: string } }).error.code], [404, 'channel_unknown']);
  } finally {
    await dashboard.close();
  }
});

test('a file that does not validate is still shown with every key and token masked', async () => {
  const dashboard = await startDashboard({});
  try {
    const path = join(dashboard.home.home, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.model_list[0].api_keys = [API_KEY, OTHER_KEY];
    config.channel_list.tg = { enabled: true, type: 'telegram', settings: { token: '123456:SECRET-token-value' } };
    config.gateway.log_level = 'loud';
    writeFileSync(path, JSON.stringify(config));
    const reply = await call(dashboard.launcher, '/api/config', { cookie: dashboard.cookie });
    assert.is(reply.status, 200, reply.text);
    const shown = (reply.body as { config: typeof config }).config;
    assert.equal(shown.model_list[0].api_keys, ['sk-t…01', 'sk-t…02']);
    assert.equal(shown.channel_list.tg.settings.token, '1234…ue');
    assert.equal(shown.gateway.log_level, 'loud');
    for (const secret of [API_KEY, OTHER_KEY, 'SECRET-token']) assert.not.ok(reply.text.includes(secret), secret);
  } finally {
    await dashboard.close();
  }
});

test.run();

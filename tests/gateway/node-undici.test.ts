// Node 22 and later give `node:http` lazy `WebSocket`, `CloseEvent` and `MessageEvent` properties that load Node's
// own copy of undici, and an ES module import of `node:http` reads them all as it builds the module's namespace.
// Nothing in Tern uses that copy (requests go through the undici in node_modules), and on Node 24 it cost a gateway
// 6 MB and `tern status` a fifth of its CPU: the bundle takes `node:http` through `require` (adapters/cli/bundle.mjs).
// On Node 20, which lacks those properties, this holds either way; CI runs it on Node 24 too.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { until } from '../support/eventually.js';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess } from '../support/gateway-process.js';
import { TelegramBotApi } from '../support/telegram-bot-api.js';
import { freePort } from '../support/telegram-emulator.js';

test("a gateway that answers a Telegram message and stops never loads Node's own undici", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-node-undici-'));
  const said = join(dir, 'loaded.json');
  const preload = join(dir, 'record.cjs');
  writeFileSync(
    preload,
    "process.on('exit', () => require('node:fs').writeFileSync(" +
      `${JSON.stringify(said)}, JSON.stringify({ nodeUndici: ` +
      "process.moduleLoadList.includes('NativeModule internal/deps/undici/undici') })));",
  );
  const model = await startGatewayModel();
  const telegram = await TelegramBotApi.start();
  const gateway = await startGatewayProcess(
    {
      gateway: { host: '127.0.0.1', port: await freePort() },
      heartbeat: { enabled: false },
      agents: { defaults: { model: 'fast' } },
      model_list: [modelEntry(model.url)],
      channel_list: { telegram: { enabled: true, settings: { ...telegram.settings(), allow_from: ['*'] } } },
    },
    { NODE_OPTIONS: `--require=${preload}` },
  );
  try {
    const chat = telegram.direct('reader');
    await chat.say('hello there');
    const texts = () => chat.sent().map((m) => m.text);
    assert.equal(await until('the reply', () => (texts().length > 0 ? texts() : undefined), 30_000, texts), [
      'echo: hello there',
    ]);
    assert.is(await gateway.stop(), 0);
    assert.equal(JSON.parse(readFileSync(said, 'utf8')), { nodeUndici: false });
  } finally {
    await gateway.stop().catch(() => undefined);
    await telegram.close();
    await model.close();
    gateway.home.remove();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

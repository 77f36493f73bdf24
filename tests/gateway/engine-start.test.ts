import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Channel, ChannelHooks } from '../../adapters/channels/channel.js';
import { Gateway } from '../../actors/gateway/gateway.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';
import { freePort } from '../support/telegram-emulator.js';
import { tempHome } from '../support/temp-home.js';
import { busQuiet } from '../support/quiet.js';

/** A channel that delivers its early message (if any) at once and connects only when the test says so. */
function heldChannel(sent: string[], early?: string): { channel: Channel; connect(): void } {
  let hooks: ChannelHooks | undefined;
  const channel: Channel = {
    kind: 'held',
    capabilities: { commands: [], streaming: false, maxMessageLength: 4000 },
    start: async (given) => {
      hooks = given;
      if (early !== undefined)
        given.onMessage({
          messageId: 'm1',
          chat: 'direct:42',
          replyTo: '42',
          sender: '42',
          senderAliases: ['42'],
          text: early,
          mentioned: false,
        });
    },
    stop: async () => undefined,
    send: async (_replyTo, text) => {
      sent.push(text);
      return `s${sent.length}`;
    },
    edit: async () => undefined,
    typing: async () => undefined,
  };
  return { channel, connect: () => hooks?.onConnected() };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a message that arrives before the channels have reported loads the turn engine and is answered', async () => {
  const home = tempHome();
  const model = await startGatewayModel();
  const config = {
    version: 2,
    gateway: { port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    heartbeat: { enabled: false },
    channel_list: { held: { enabled: true, type: 'held', settings: { typing: false, allow_from: ['*'] } } },
  };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const sent: string[] = [];
  const held = heldChannel(sent, 'early bird');
  const gateway = await Gateway.start({ loaded, env: home.env, logs, createChannel: async () => held.channel });
  try {
    await until(() => sent.length > 0, 'the reply');
    assert.equal(sent, ['echo: early bird']);
    assert.is(gateway.readiness().ready, false);
    held.connect();
    await until(() => gateway.readiness().ready, 'ready');
  } finally {
    await gateway.stop();
    logs.close();
    await model.close();
    home.remove();
  }
});

test('engineLoaded settles once the channels have reported and the engine has loaded, not before', async () => {
  const home = tempHome();
  const config = {
    version: 2,
    gateway: { port: await freePort() },
    heartbeat: { enabled: false },
    channel_list: { held: { enabled: true, type: 'held', settings: { typing: false, allow_from: ['*'] } } },
  };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const held = heldChannel([]);
  const gateway = await Gateway.start({ loaded, env: home.env, logs, createChannel: async () => held.channel });
  let settled = false;
  void gateway.engineLoaded.then(() => {
    settled = true;
  });
  try {
    await busQuiet(gateway.core.bus, { quietMs: 300 });
    assert.is(settled, false);
    held.connect();
    await until(() => settled, 'the engine');
    assert.is(gateway.readiness().ready, true);
  } finally {
    await gateway.stop();
    logs.close();
    home.remove();
  }
});

test(
  'a tools.mcp block the MCP manager cannot run refuses the start, ' + 'although MCP servers connect after /ready',
  async () => {
    const home = tempHome();
    const config = {
      version: 2,
      gateway: { port: await freePort() },
      heartbeat: { enabled: false },
      tools: {
        mcp: { enabled: true, servers: { docs: { enabled: true, type: 'http', url: 'http://localhost:3000/mcp' } } },
      },
    };
    writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
    const loaded = loadConfig({ env: home.env });
    // The config loader refuses such an address itself; the gateway must still refuse what reaches it another way.
    loaded.config.tools.mcp.servers.docs!.url = 'localhost:3000';
    const logs = openGatewayLogs(loaded);
    try {
      const error = await Gateway.start({ loaded, env: home.env, logs }).then(
        () => undefined,
        (thrown: unknown) => thrown as { code?: string; message?: string },
      );
      assert.is(error?.code, 'mcp_config_invalid');
      assert.is(
        error?.message,
        'tools.mcp.servers.docs.url: "localhost:3000" is not an http(s) URL (allowed: http://… or https://…)',
      );
    } finally {
      logs.close();
      home.remove();
    }
  },
);

test.run();

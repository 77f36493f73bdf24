import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/mcp-servers.js';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';

const until = async (check: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

test('a gateway started with no model and no channel says what that means and how to go on', async () => {
  const gateway = await startGatewayProcess({ gateway: { port: await freePort() }, heartbeat: { enabled: false } });
  try {
    await until(() => gateway.stderr().includes('no channel'), 'the hints');
    assert.equal(
      gateway
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('tern: note:')),
      [
        'tern: note: no model in model_list, so messages get no answer. ' +
          'Run `tern onboard` (or add a model_list entry, see README: Quick start), then `tern doctor`.',
        'tern: note: no channel in channel_list, so only the heartbeat and cron jobs run here. ' +
          'Add one (`tern onboard --telegram-token …`, or README: Quick start), ' +
          'or chat through the dashboard (tern-launcher).',
      ],
    );
  } finally {
    assert.is(await gateway.stop(), 0);
    gateway.home.remove();
  }
});

test('with a model and an enabled channel that lacks its token, only that channel is named', async () => {
  const model = await startGatewayModel();
  const gateway = await startGatewayProcess({
    gateway: { port: await freePort() },
    heartbeat: { enabled: false },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    channel_list: { telegram: { enabled: true } },
  });
  try {
    await until(() => gateway.stderr().includes('channel_list.telegram'), 'the warning');
    const lines = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('tern: note:') || line.startsWith('tern: warning: channel'));
    assert.equal(lines, [
      'tern: warning: channel_list.telegram.settings.token: ' +
        'is required for an enabled telegram channel (allowed: the bot token from @BotFather, ' +
        'in config.json or in .security.yml under channel_list.telegram.token)',
    ]);
  } finally {
    await gateway.stop();
    gateway.home.remove();
    await model.close();
  }
});

test.run();

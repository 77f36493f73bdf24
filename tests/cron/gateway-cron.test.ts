import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import { loadConfig } from '../../store/config/index.js';
import { listCronJobs, putCronJob } from '../../store/cron-db.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { startCli } from '../support/cli.js';
import { startGatewayModel } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';
import { tempHome } from '../support/temp-home.js';
import { deliverJob } from './cron-harness.js';

const TOKEN = '700009:cron-token-CCCC';

test('the gateway runs due jobs at start, and a job added by `tern cron add` while it runs', async () => {
  const home = tempHome();
  const model = await startGatewayModel();
  const emulator = await TelegramEmulator.start();
  const config = {
    version: 2,
    gateway: { port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      telegram: {
        enabled: true,
        settings: { token: TOKEN, base_url: emulator.url, poll_timeout_seconds: 1, allow_from: ['*'] },
      },
    },
  };
  writeFileSync(join(home.home, 'config.json'), JSON.stringify(config));
  const past = new Date(Date.now() - 60_000).toISOString();
  await putCronJob(home.workspace, {
    ...deliverJob('remind', { kind: 'at', at: past }),
    job: { kind: 'deliver', channel: 'telegram', chat: 'direct:1001', text: 'stand up' },
  });
  await putCronJob(home.workspace, {
    ...deliverJob('ask', { kind: 'at', at: past }),
    job: { kind: 'agent_turn', channel: 'telegram', chat: 'direct:1001', message: 'weather in Paris?' },
  });
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const gateway = await Gateway.start({ loaded, env: home.env, logs, drainMs: 2000 });
  try {
    const messages = await emulator.waitForBotMessages(TOKEN, 1001, 2);
    assert.equal(messages.map((m) => m.text).sort(), ['echo: weather in Paris?', 'stand up']);
    const deadline = Date.now() + 10_000;
    while ((await listCronJobs(home.workspace)).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await listCronJobs(home.workspace), []);

    // `tern cron add` is another process; the running gateway picks the job up at its next store poll.
    const child = startCli(
      [
        'cron',
        'add',
        '--every',
        '1s',
        '--deliver',
        'from the terminal',
        '--channel',
        'telegram',
        '--chat',
        'direct:1001',
      ],
      home.env,
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.is(code, 0, stderr);
    const later = await emulator.waitForBotMessages(TOKEN, 1001, 3);
    assert.is(later[2]?.text, 'from the terminal');
  } finally {
    await gateway.stop();
    logs.close();
    await emulator.stop();
    await model.close();
    home.remove();
  }
});

test.run();

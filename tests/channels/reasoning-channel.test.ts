// `reasoning_channel_id` (the peer runtime's channel field): a model's reasoning goes to that chat on the same
// channel, the user's chat gets only the answer. Through a real gateway process and the WeCom emulator.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { quietGateway } from '../support/quiet.js';
import { freePort } from '../support/telegram-emulator.js';
import { WeComEmulator, type WeComPush } from './wecom/wecom-emulator.js';

interface Context {
  model: GatewayModel;
  wecom: WeComEmulator;
  plain: WeComEmulator;
  gateway: GatewayProcess;
}

async function until<T>(read: () => T[], what: string, timeoutMs = 60_000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (read().length === 0) {
    if (Date.now() > deadline) throw new Error(`nothing reached ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return read();
}

const reasoning = suite<Context>('reasoning_channel_id');

reasoning.before(async (context) => {
  context.model = await startGatewayModel();
  context.wecom = await WeComEmulator.start();
  context.plain = await WeComEmulator.start();
  const settings = (w: WeComEmulator) => ({
    allow_from: ['*'],
    bot_id: w.botId,
    secret: w.secret,
    websocket_url: w.url,
    send_thinking_message: false,
  });
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort() },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      // Where the peer runtime writes it: beside `settings`.
      wecom: {
        enabled: true,
        type: 'wecom',
        reasoning_channel_id: 'group:wrthinking',
        settings: settings(context.wecom),
      },
      wecom_plain: { enabled: true, type: 'wecom', reasoning_channel_id: '', settings: settings(context.plain) },
    },
  });
});

reasoning.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.wecom?.close();
  await context.plain?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

const shown = (pushes: WeComPush[]) => pushes.map((p) => [p.chatId, p.chatType, p.content]);

reasoning("the model's reasoning goes to the reasoning chat, the answer to the user", async ({ wecom, gateway }) => {
  const user = wecom.user();
  user.say('THINK about terns');
  await until(() => wecom.pushes, 'the reasoning group');
  await until(() => user.streams().filter((s) => s.finished), 'the user');
  const seen = await quietGateway(gateway.home.sessions, () => ({
    pushes: shown(wecom.pushes),
    user: user.streams().map((s) => s.contents),
  }));
  assert.equal(seen, {
    pushes: [['wrthinking', 2, 'pondering: THINK about terns']],
    user: [['echo: THINK about terns']],
  });
});

reasoning('a channel whose reasoning_channel_id is empty posts the reasoning nowhere', async ({ plain, gateway }) => {
  const user = plain.user();
  user.say('THINK quietly');
  await until(() => user.streams().filter((s) => s.finished), 'the user');
  const seen = await quietGateway(gateway.home.sessions, () => ({
    pushes: shown(plain.pushes),
    user: user.streams().map((s) => s.contents),
  }));
  assert.equal(seen, { pushes: [], user: [['echo: THINK quietly']] });
});

reasoning.run();

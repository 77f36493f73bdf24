// `reasoning_channel_id` (the peer runtime's channel field): a model's reasoning goes to that chat on the same
// channel, the user's chat gets only the answer. Through a real gateway process and the WeCom emulator.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { quietGateway } from '../support/quiet.js';
import {
  startChannelsGateway,
  stopChannelsGateway,
  untilSome as until,
  type ChannelsGateway,
} from './channels-gateway.js';
import { WeComEmulator, type WeComPush } from './wecom/wecom-emulator.js';

interface Context extends ChannelsGateway {
  wecom: WeComEmulator;
  plain: WeComEmulator;
}

const reasoning = suite<Context>('reasoning_channel_id');

reasoning.before(async (context) => {
  context.wecom = await WeComEmulator.start();
  context.plain = await WeComEmulator.start();
  const settings = (w: WeComEmulator) => ({
    allow_from: ['*'],
    bot_id: w.botId,
    secret: w.secret,
    websocket_url: w.url,
    send_thinking_message: false,
  });
  Object.assign(
    context,
    await startChannelsGateway({
      // Where the peer runtime writes it: beside `settings`.
      wecom: {
        enabled: true,
        type: 'wecom',
        reasoning_channel_id: 'group:wrthinking',
        settings: settings(context.wecom),
      },
      wecom_plain: { enabled: true, type: 'wecom', reasoning_channel_id: '', settings: settings(context.plain) },
    }),
  );
});

reasoning.after(async (context) => {
  await stopChannelsGateway(context);
  await context.wecom?.close();
  await context.plain?.close();
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

// The `message` tool names a chat as the gateway does (`group:<id>`, `direct:<id>`): on every channel whose platform
// addresses users and groups differently, a text to a group must reach the group and one to a user the user, through
// a real gateway process and each platform's emulator.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  startChannelsGateway,
  stopChannelsGateway,
  untilSome as until,
  type ChannelsGateway,
} from './channels-gateway.js';
import { DingTalkContractEmulator } from './dingtalk/dingtalk-contract-emulator.js';
import { MattermostContractEmulator } from './mattermost/mattermost-contract-emulator.js';
import { OneBotContractEmulator } from './onebot/onebot-contract-emulator.js';
import { QqContractEmulator } from './qq/qq-contract-emulator.js';
import { SignalContractEmulator } from './signal/signal-contract-emulator.js';
import { WeComEmulator } from './wecom/wecom-emulator.js';

interface Context extends ChannelsGateway {
  wecom: WeComEmulator;
  qq: QqContractEmulator;
  onebot: OneBotContractEmulator;
  dingtalk: DingTalkContractEmulator;
  signal: SignalContractEmulator;
  mattermost: MattermostContractEmulator;
}

const targets = suite<Context>("the message tool's direct: and group: chats on each channel");

targets.before(async (context) => {
  context.wecom = await WeComEmulator.start();
  context.qq = await QqContractEmulator.start();
  context.onebot = await OneBotContractEmulator.start();
  context.dingtalk = await DingTalkContractEmulator.start();
  context.signal = await SignalContractEmulator.start();
  context.mattermost = await MattermostContractEmulator.start();
  const { botId, secret, url } = context.wecom;
  const entry = (type: string, settings: Record<string, unknown>) => ({ enabled: true, type, settings });
  Object.assign(
    context,
    await startChannelsGateway({
      wecom: entry('wecom', { allow_from: ['*'], bot_id: botId, secret, websocket_url: url }),
      qq: entry('qq', context.qq.settings()),
      onebot: entry('onebot', context.onebot.settings()),
      dingtalk: entry('dingtalk', context.dingtalk.settings()),
      signal: entry('signal', context.signal.settings()),
      mattermost: entry('mattermost', context.mattermost.settings()),
    }),
  );
  await context.gateway.waitUntil((body) => body.channels.every((c) => c.state === 'connected'), 60_000);
});

targets.after(async (context) => {
  await stopChannelsGateway(context);
  for (const emulator of [context.wecom, context.qq, context.onebot, context.dingtalk, context.signal])
    await emulator?.close();
  await context.mattermost?.close();
});

/** A WeCom user asks the agent to send `text` to `chat` on `channel`, through the `message` tool. */
function note(context: Context, channel: string, chat: string, text: string): void {
  context.wecom.user().say(`NOTE TO ${channel} ${chat} ${text}`);
}

targets('QQ: group: reaches the group, direct: the user', async (context) => {
  const { qq } = context.qq;
  note(context, 'qq', 'group:G0A1', 'to the QQ group');
  note(context, 'qq', 'direct:U0B2', 'to the QQ user');
  const [group] = await until(() => qq.sentTo('group:G0A1'), 'the QQ group');
  const [user] = await until(() => qq.sentTo('c2c:U0B2'), 'the QQ user');
  assert.equal([group?.body.content, user?.body.content], ['to the QQ group', 'to the QQ user']);
});

targets('OneBot: group: reaches the group, direct: the user', async (context) => {
  const { onebot } = context.onebot;
  note(context, 'onebot', 'group:700100', 'to the OneBot group');
  note(context, 'onebot', 'direct:800200', 'to the OneBot user');
  const [group] = await until(() => onebot.sentTo('group:700100'), 'the OneBot group');
  const [user] = await until(() => onebot.sentTo('private:800200'), 'the OneBot user');
  assert.equal([group?.text, user?.text], ['to the OneBot group', 'to the OneBot user']);
});

targets('DingTalk: group: reaches the group, direct: the user', async (context) => {
  const { dingtalk } = context.dingtalk;
  note(context, 'dingtalk', 'group:cidGROUP1==', 'to the DingTalk group');
  note(context, 'dingtalk', 'direct:staff0c3', 'to the DingTalk user');
  const sent = (via: string, to: string) => () => dingtalk.sent.filter((m) => m.via === via && m.to === to);
  const [group] = await until(sent('groupSend', 'cidGROUP1=='), 'the DingTalk group');
  const [user] = await until(sent('batchSend', 'staff0c3'), 'the DingTalk user');
  assert.equal([group?.text, user?.text], ['to the DingTalk group', 'to the DingTalk user']);
});

targets('Signal: group: reaches the group, direct: the user', async (context) => {
  const { daemon } = context.signal;
  note(context, 'signal', 'group:c2lnbmFsZ3JvdXA=', 'to the Signal group');
  note(context, 'signal', 'direct:+15550209999', 'to the Signal user');
  const [group] = await until(() => daemon.to('group:c2lnbmFsZ3JvdXA='), 'the Signal group');
  const [user] = await until(() => daemon.to('+15550209999'), 'the Signal user');
  assert.equal([group?.text, user?.text], ['to the Signal group', 'to the Signal user']);
});

targets("Mattermost: channel: reaches the channel, direct: the user's direct channel", async (context) => {
  const { mm } = context.mattermost;
  const user = mm.user('ann');
  note(context, 'mattermost', 'channel:town0square0channel0id', 'to the Mattermost channel');
  note(context, 'mattermost', `direct:${user.id}`, 'to the Mattermost user');
  const [channel] = await until(() => mm.botPosts('town0square0channel0id'), 'the Mattermost channel');
  const [direct] = await until(() => mm.botPosts(user.channelId), "the Mattermost user's direct channel");
  assert.equal([channel?.message, direct?.message], ['to the Mattermost channel', 'to the Mattermost user']);
});

targets('WeCom: group: reaches a group the bot never heard from, direct: the user', async (context) => {
  const { wecom } = context;
  note(context, 'wecom', 'group:wrgroupNEW', 'to the WeCom group');
  note(context, 'wecom', 'direct:colleague9', 'to the WeCom user');
  const pushed = (chatId: string) => () => wecom.pushes.filter((p) => p.chatId === chatId);
  const [group] = await until(pushed('wrgroupNEW'), 'the WeCom group');
  const [user] = await until(pushed('colleague9'), 'the WeCom user');
  assert.equal(
    [group, user].map((p) => [p?.chatType, p?.content]),
    [
      [2, 'to the WeCom group'],
      [1, 'to the WeCom user'],
    ],
  );
});

targets.run();

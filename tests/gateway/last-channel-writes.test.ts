// The last active chat (`state/last-channel.json`, where the heartbeat answers) against a real `tern gateway`: it is
// replaced when another chat speaks, and left alone while the same chat goes on (a file and a rename per message).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { homeWithWorkspace, startChatGateway } from '../support/chat-gateway.js';
import type { GatewayProcess } from '../support/gateway-process.js';
import { startRuleModel, type RuleModel } from '../support/rule-model.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '454545:last-channel-token-EEEE';
const ANN = 1001;
const BOB = 1002;

interface Context {
  model: RuleModel;
  emulator: TelegramEmulator;
  gateway: GatewayProcess;
}

const last = suite<Context>('the last active chat, written by a real gateway');

last.before(async (context) => {
  context.model = await startRuleModel((request) => ({ text: `ok: ${request.user}` }));
  context.emulator = await TelegramEmulator.start();
  context.gateway = await startChatGateway({
    home: homeWithWorkspace(),
    modelUrl: context.model.url,
    emulatorUrl: context.emulator.url,
    token: TOKEN,
    users: [ANN, BOB],
  });
});

last.after(async (context) => {
  if (context.gateway.child.exitCode === null) await context.gateway.stop();
  await context.emulator.stop();
  await context.model.close();
  context.gateway.home.remove();
});

/** Sends a message and waits for its reply: the gateway recorded the chat when it accepted the message. */
async function exchange(context: Context, user: number, text: string): Promise<void> {
  const before = context.emulator.botMessages(TOKEN, user).length;
  await context.emulator.say(TOKEN, text, { userId: user });
  const replies = await context.emulator.waitForBotMessages(TOKEN, user, before + 1);
  assert.is(replies.at(-1)!.text, `ok: ${text}`);
}

last('the file is replaced when the chat changes, and kept while the same chat goes on', async (context) => {
  const state = join(context.gateway.home.workspace, 'state');
  const file = join(state, 'last-channel.json');
  const record = () => JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;

  await exchange(context, ANN, 'first');
  const first = { inode: statSync(file).ino, text: readFileSync(file, 'utf8') };
  const { at, ...target } = record();
  assert.equal(target, { channel: 'telegram', account: 'default', chat: `direct:${ANN}`, reply_to: String(ANN) });
  assert.ok(!Number.isNaN(Date.parse(at!)), at);

  await exchange(context, ANN, 'second');
  await exchange(context, ANN, 'third');
  assert.is(statSync(file).ino, first.inode, 'the same file: not written again');
  assert.is(readFileSync(file, 'utf8'), first.text);

  await exchange(context, BOB, 'fourth');
  assert.is.not(statSync(file).ino, first.inode);
  assert.equal(
    { ...record(), at: '' },
    { channel: 'telegram', account: 'default', chat: `direct:${BOB}`, reply_to: String(BOB), at: '' },
  );

  await exchange(context, ANN, 'fifth');
  assert.is(record().chat, `direct:${ANN}`);
  assert.equal(readdirSync(state), ['last-channel.json'], 'no temp file is left');
});

last.run();

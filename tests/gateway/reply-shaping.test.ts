// agents.defaults.split_on_marker and tool_feedback, the peer runtime's way, seen in a Telegram chat (Bot API
// emulator) of a real `tern gateway` process.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Conversation } from '../channels/contract/emulator.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { quietGateway } from '../support/quiet.js';
import { TelegramBotApi } from '../support/telegram-bot-api.js';
import { freePort } from '../support/telegram-emulator.js';

interface Context {
  model: GatewayModel;
  telegram: TelegramBotApi;
  gateway: GatewayProcess;
}

const shaping = suite<Context>('replies shaped by agents.defaults');

shaping.before(async (context) => {
  context.model = await startGatewayModel();
  context.telegram = await TelegramBotApi.start();
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    heartbeat: { enabled: false },
    agents: {
      defaults: { model: 'fast', split_on_marker: true, tool_feedback: { enabled: true, max_args_length: 30 } },
    },
    model_list: [modelEntry(context.model.url)],
    channel_list: {
      telegram: { enabled: true, settings: { ...context.telegram.settings(), allow_from: ['*'] } },
    },
  });
});

shaping.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.telegram?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

/** What the bot sent the chat once it has sent `count` messages and gone quiet. */
async function sentAfter(gateway: GatewayProcess, chat: Conversation, count: number): Promise<string[]> {
  const texts = () => chat.sent().map((m) => m.text);
  await until(`${count} messages`, () => (texts().length >= count ? true : undefined), 30_000, texts);
  return quietGateway(gateway.home.sessions, texts);
}

shaping('split_on_marker: each part between markers is a message of its own, blank parts left out', async (c) => {
  const chat = c.telegram.direct('split');
  await chat.say('one <|[SPLIT]|> two<|[SPLIT]|> <|[SPLIT]|>three');
  assert.equal(await sentAfter(c.gateway, chat, 3), ['echo: one', 'two', 'three']);
});

shaping('split_on_marker: the model is told how to part its answer', async (c) => {
  const system = c.model.systems.at(-1) ?? '';
  assert.ok(system.includes('put <|[SPLIT]|> between the parts of an answer'), system);
});

shaping('tool_feedback: a tool call is told to the chat before its effect: name, why, arguments (cut)', async (c) => {
  const chat = c.telegram.direct('feedback');
  await chat.say('NOTE the lights are on');
  assert.equal(await sentAfter(c.gateway, chat, 3), [
    '🔧 <code>message</code>\nContinuing the current task.: NOTE the lights are on\n' +
      '<pre><code class="language-json">{\n  "content": "the lights ...</code></pre>',
    'the lights are on',
    'noted',
  ]);
});

shaping("tool_feedback without separate_messages: a turn's second notice edits its first", async (c) => {
  const chat = c.telegram.direct('edits');
  await chat.say('LOOK');
  const notice = (path: string) =>
    '🔧 <code>list_dir</code>\nContinuing the current task.: LOOK\n' +
    `<pre><code class="language-json">{\n  "path": "${path}"\n}</code></pre>`;
  assert.equal(await sentAfter(c.gateway, chat, 2), [notice('memory'), 'looked']);
  assert.equal(chat.sent()[0]!.edits, [notice('.')]);
});

shaping.run();

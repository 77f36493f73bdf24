import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HELP_TEXT } from '../../actors/chat-commands.js';
import { pairingText } from '../../actors/gateway/inbound.js';
import { LONG_REPLY, startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { eventually } from '../support/eventually.js';
import { quietGateway } from '../support/quiet.js';
import { freePort, TelegramEmulator } from '../support/telegram-emulator.js';

const MAIN = '111111:main-bot-token-AAAA';
const GROUP = '222222:group-bot-token-BBBB';
const BACKUP = '333333:backup-bot-token-CCCC';

interface Context {
  model: GatewayModel;
  emulator: TelegramEmulator;
  second: TelegramEmulator;
  gateway: GatewayProcess;
}

const e2e = suite<Context>('tern gateway against the Telegram Bot API emulator');

e2e.before(async (context) => {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start();
  context.second = await TelegramEmulator.start();
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      telegram: {
        enabled: true,
        settings: {
          token: MAIN,
          base_url: context.emulator.url,
          allow_from: ['@alice', '1002'],
          poll_timeout_seconds: 1,
        },
      },
      tg_group: {
        enabled: true,
        type: 'telegram',
        settings: {
          token: GROUP,
          base_url: context.emulator.url,
          mention_only: true,
          poll_timeout_seconds: 1,
          allow_from: ['*'],
        },
      },
      tg_backup: {
        enabled: true,
        type: 'telegram',
        settings: {
          token: BACKUP,
          base_url: context.second.url,
          restart_backoff_ms: 100,
          poll_timeout_seconds: 1,
          allow_from: ['*'],
        },
      },
    },
  });
});

e2e.after(async (context) => {
  if (context.gateway.child.exitCode === null) await context.gateway.stop();
  await context.emulator.stop();
  await context.second.stop().catch(() => undefined);
  await context.model.close();
  context.gateway.home.remove();
});

const texts = (messages: Array<{ text: string }>): string[] => messages.map((m) => m.text);

e2e('a user message gets exactly one reply', async ({ emulator }) => {
  await emulator.say(MAIN, 'hello there', { userId: 1001 });
  const [reply] = await emulator.waitForBotMessages(MAIN, 1001, 1);
  assert.is(reply?.text, 'echo: hello there');
  await emulator.say(MAIN, 'second', { userId: 1001 });
  assert.equal(texts(await emulator.waitForBotMessages(MAIN, 1001, 2)), ['echo: hello there', 'echo: second']);
});

e2e('the message tool sends to the current chat through the channel, then the turn replies', async ({ emulator }) => {
  await emulator.say(MAIN, 'NOTE buy milk', { userId: 1001, chatId: 1005 });
  assert.equal(texts(await emulator.waitForBotMessages(MAIN, 1005, 2)), ['buy milk', 'noted']);
});

e2e('a redelivered update gets no reply', async ({ emulator }) => {
  const update = await emulator.say(MAIN, 'only once', { userId: 1001 });
  await emulator.waitForBotMessages(MAIN, 1001, 3);
  emulator.redeliver(update);
  await emulator.say(MAIN, 'after the redelivery', { userId: 1001 });
  await emulator.waitForBotMessages(MAIN, 1001, 4);
  assert.equal(texts(emulator.botMessages(MAIN, 1001)).slice(2), ['echo: only once', 'echo: after the redelivery']);
});

e2e('a long reply is split at 4096 characters without breaking the code block', async ({ emulator, gateway }) => {
  await emulator.say(MAIN, 'LONG answer please', { userId: 1002, userName: 'bob' });
  const parts = await emulator.waitForBotMessages(MAIN, 1002, 2);
  const all = await quietGateway(gateway.home.sessions, () => texts(emulator.botMessages(MAIN, 1002)));
  assert.ok(all.length >= 3, `expected the reply in several parts, got ${all.length}`);
  for (const part of all) {
    assert.ok(part.length <= 4096, `a part has ${part.length} characters`);
    assert.is((part.match(/^```/gm) ?? []).length % 2, 0, 'every part opens and closes its code fences');
  }
  const rejoined = all
    .join('\n')
    .split('\n')
    .filter((line) => line !== '```' && line !== '```ts');
  assert.equal(
    rejoined,
    LONG_REPLY.split('\n').filter((line) => line !== '```' && line !== '```ts'),
  );
  // Markdown reaches Telegram as HTML: the user sees the code block, not its fences.
  assert.is(parts[0]?.text.startsWith('Here is the code:\nconst line0 = 0;'), true);
});

e2e(
  'senders outside allow_from get no answer but a pairing code; listed ones by id or @username are answered',
  async ({ emulator }) => {
    await emulator.say(MAIN, 'let me in', { userId: 1003, userName: 'mallory' });
    await emulator.say(MAIN, 'hi from alice in another chat', { userId: 1001, chatId: 1004 });
    await emulator.waitForBotMessages(MAIN, 1004, 1);
    const [code] = (await emulator.waitForBotMessages(MAIN, 1003, 1)).map(
      (m) => /^Pairing code: ([A-Z2-9]{8})\n/.exec(m.text)?.[1],
    );
    assert.equal(texts(emulator.botMessages(MAIN, 1003)), [pairingText(code ?? '?')]);
  },
);

e2e('in a group, mention_only answers only messages that mention the bot, without the mention', async (context) => {
  const { emulator, gateway } = context;
  const group = { userId: 1001, chatId: -500, type: 'group' as const };
  await emulator.say(GROUP, 'talking among ourselves', group);
  await emulator.say(GROUP, '@TestNameBot what is up', group);
  const [reply] = await emulator.waitForBotMessages(GROUP, -500, 1);
  assert.is(reply?.text, 'echo: what is up');
  assert.is(await quietGateway(gateway.home.sessions, () => emulator.botMessages(GROUP, -500).length), 1);
});

e2e('/help, /help@botname, /use, /use clear and /clear are answered before the model', async ({ emulator, model }) => {
  const user = { userId: 1001, chatId: 2001 };
  const before = model.requests;
  const commands = ['/help', '/help@TestNameBot', '/use weather', '/use clear', '/clear'];
  for (const [index, command] of commands.entries()) {
    await emulator.say(MAIN, command, user);
    await emulator.waitForBotMessages(MAIN, 2001, index + 1);
  }
  assert.equal(texts(emulator.botMessages(MAIN, 2001)), [
    HELP_TEXT,
    HELP_TEXT,
    'Skill weather will be used for your next message.',
    'Cancelled /use weather.',
    'Conversation cleared.',
  ]);
  assert.is(model.requests, before);
});

e2e('an unregistered /foo goes to the model', async ({ emulator }) => {
  await emulator.say(MAIN, '/foo bar', { userId: 1001, chatId: 2002 });
  const [reply] = await emulator.waitForBotMessages(MAIN, 2002, 1);
  assert.is(reply?.text, 'echo: /foo bar');
});

e2e('/stop ends the running turn with a single "Stopped." reply', async ({ emulator, gateway, model }) => {
  const user = { userId: 1001, chatId: 2003 };
  await emulator.say(MAIN, 'HOLD job', user);
  await eventually(() => model.asked.includes('HOLD job'), true);
  await emulator.say(MAIN, '/stop', user);
  await emulator.waitForBotMessages(MAIN, 2003, 1);
  // The model answers now: a turn that was not stopped would send that answer too.
  model.release();
  assert.equal(await quietGateway(gateway.home.sessions, () => texts(emulator.botMessages(MAIN, 2003))), ['Stopped.']);
});

e2e(
  'a channel whose connection breaks is restarted while the other channels keep answering',
  async ({ emulator, second, gateway }) => {
    await second.say(BACKUP, 'before', { userId: 1001 });
    await second.waitForBotMessages(BACKUP, 1001, 1);
    await second.stop();
    await gateway.waitUntil((body) => body.channels.some((c) => c.name === 'tg_backup' && c.state === 'failed'));
    await emulator.say(MAIN, 'still answering?', { userId: 1001, chatId: 2004 });
    const [reply] = await emulator.waitForBotMessages(MAIN, 2004, 1);
    assert.is(reply?.text, 'echo: still answering?');
    await second.restart();
    await gateway.waitUntil((body) => body.channels.some((c) => c.name === 'tg_backup' && c.state === 'connected'));
    // A fresh emulator numbers messages from 1 again; another chat keeps the ids distinct, as on Telegram.
    await second.say(BACKUP, 'back again', { userId: 1001, chatId: 1005 });
    const [back] = await second.waitForBotMessages(BACKUP, 1005, 1);
    assert.is(back?.text, 'echo: back again');
  },
);

e2e('SIGINT drains and exits 0; the logs never show a token', async ({ gateway }) => {
  assert.is(await gateway.stop(), 0);
  const log = readFileSync(join(gateway.home.home, 'logs', 'gateway.log'), 'utf8');
  assert.match(log, /channel failed; restarting channel=tg_backup/);
  assert.match(log, /gateway stopped/);
  for (const token of [MAIN, GROUP, BACKUP]) assert.not.ok(log.includes(token), 'a token leaked into gateway.log');
});

e2e.run();

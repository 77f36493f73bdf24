import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { quietGateway } from '../../support/quiet.js';
import { freePort } from '../../support/telegram-emulator.js';
import { received } from '../../support/received.js';
import { WeComEmulator, type WeComPush, type WeComStream } from './wecom-emulator.js';

interface Context {
  model: GatewayModel;
  wecom: WeComEmulator;
  plain: WeComEmulator;
  gateway: GatewayProcess;
}

async function until<T>(read: () => T[], count: number, timeoutMs = 60_000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (read().length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} replies from the bot, got ${JSON.stringify(read())}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return read();
}

const finished = (streams: () => WeComStream[]) => (): WeComStream[] => streams().filter((s) => s.finished);

const wecom = suite<Context>("tern gateway on a WeCom intelligent bot's long connection");

wecom.before(async (context) => {
  context.model = await startGatewayModel();
  context.wecom = await WeComEmulator.start();
  context.plain = await WeComEmulator.start();
  const { botId, secret, url } = context.wecom;
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      wecom: {
        enabled: true,
        type: 'wecom',
        allow_from: ['*'],
        settings: { allow_from: ['*'], bot_id: botId, secret, websocket_url: url, restart_backoff_ms: 200 },
      },
      wecom_plain: {
        enabled: true,
        type: 'wecom',
        settings: {
          allow_from: ['*'],
          bot_id: context.plain.botId,
          secret: context.plain.secret,
          websocket_url: context.plain.url,
          send_thinking_message: false,
        },
      },
      wecom_wrong: {
        enabled: true,
        type: 'wecom',
        settings: { allow_from: ['*'], bot_id: botId, secret: 'not-the-secret', websocket_url: url },
      },
    },
  });
});

wecom.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.wecom?.close();
  await context.plain?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

wecom('a message gets "Thinking…" at once, then the answer finishes that same stream', async ({ wecom, gateway }) => {
  const user = wecom.user();
  user.say('**hello** there');
  await until(finished(user.streams), 1);
  const streams = await quietGateway(gateway.home.sessions, user.streams);
  assert.equal(
    streams.map(({ contents, finished }) => ({ contents, finished })),
    [{ contents: ['Thinking…', 'echo: **hello** there'], finished: true }],
  );
  assert.equal(user.pushes(), []);
});

wecom("with send_thinking_message false the answer is the stream's only content", async ({ plain, gateway }) => {
  const user = plain.user();
  user.say('no thinking');
  await until(finished(user.streams), 1);
  const streams = await quietGateway(gateway.home.sessions, user.streams);
  assert.equal(
    streams.map((s) => s.contents),
    [['echo: no thinking']],
  );
});

wecom('each answer goes out on its own message, when the user wrote again before it', async (context) => {
  const { wecom, model, gateway } = context;
  const user = wecom.user();
  const first = String(user.say('HOLD first').msgid);
  await until(() => model.asked.filter((text) => text === 'HOLD first'), 1);
  const second = String(user.say('second').msgid);
  await until(() => (received(gateway.home.sessions, second) ? [true] : []), 1);
  model.release();
  await until(finished(user.streams), 2);
  const streams = await quietGateway(gateway.home.sessions, user.streams);
  const on = (msgId: string): string[][] => streams.filter((s) => s.msgId === msgId).map((s) => s.contents);
  assert.equal(on(first), [['Thinking…', 'echo: HOLD first']]);
  assert.equal(on(second), [['Thinking…', 'echo: second']]);
  assert.equal(user.pushes(), []);
});

wecom('a redelivered message gets no second answer', async ({ wecom, gateway }) => {
  const user = wecom.user();
  const first = user.say('only once');
  await until(finished(user.streams), 1);
  wecom.redeliver(first);
  user.say('after the redelivery');
  await until(finished(user.streams), 2);
  const streams = await quietGateway(gateway.home.sessions, user.streams);
  assert.equal(
    streams.map((s) => s.contents.at(-1)),
    ['echo: only once', 'echo: after the redelivery'],
  );
});

wecom('a group @-message is answered in the group without the mention', async ({ wecom, gateway }) => {
  const inGroup = (): WeComStream[] => wecom.streams.filter((s) => s.chat === 'wrgroup1');
  wecom.groupAt('wrgroup1', 'status please');
  await until(() => inGroup().filter((s) => s.finished), 1);
  const streams = await quietGateway(gateway.home.sessions, inGroup);
  assert.equal(
    streams.map((s) => s.contents.at(-1)),
    ['echo: status please'],
  );
});

wecom('a voice message comes transcribed by WeCom and is answered as such', async ({ wecom }) => {
  const user = wecom.user();
  user.speak('what time is it');
  const [stream] = await until(finished(user.streams), 1);
  assert.is(stream!.contents.at(-1), 'echo: [voice message] what time is it');
});

wecom('when WeCom no longer takes the reply in place, the answer is pushed to the chat', async ({ plain }) => {
  plain.windowClosed = true;
  const user = plain.user();
  user.say('late answer');
  const [{ at: _at, ...push }] = (await until(user.pushes, 1)) as [WeComPush];
  plain.windowClosed = false;
  assert.equal(push, { chatId: user.userId, chatType: 1, content: 'echo: late answer' });
});

wecom('a refused secret fails that channel saying so', async ({ gateway }) => {
  // Retried after a backoff, so a second read may find it starting again: read the reason from the failed body.
  const failed = await gateway.waitUntil((b) =>
    b.channels.some((c) => c.name === 'wecom_wrong' && c.state === 'failed'),
  );
  assert.match(
    failed.channels.find((c) => c.name === 'wecom_wrong')?.reason ?? '',
    /WeCom refused the connection \(Authentication failed: invalid credential \(code: 40001\)\)/,
  );
  assert.is(failed.channels.find((c) => c.name === 'wecom')?.state, 'connected');
});

wecom('after WeCom drops the connection the channel subscribes again and answers', async ({ wecom, gateway }) => {
  const before = wecom.connections();
  wecom.drop();
  await gateway.waitUntil(() => wecom.connections() > before, 30_000);
  await gateway.waitUntil((body) => body.channels.find((c) => c.name === 'wecom')?.state === 'connected');
  const user = wecom.user();
  user.say('are you back');
  const [stream] = await until(finished(user.streams), 1);
  assert.is(stream!.contents.at(-1), 'echo: are you back');
  assert.is(wecom.connections() - before, 1, 'one new connection, no reconnect storm');
});

wecom('the secret never reaches a log', async ({ wecom, gateway }) => {
  const logs = join(gateway.home.home, 'logs');
  const written =
    readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n') + gateway.stderr();
  assert.ok(written.includes('wecom'));
  assert.not.ok(written.includes(wecom.secret));
});

wecom.run();

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel, TRANSCRIPT, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { atLeast } from '../../support/eventually.js';
import { quietGateway } from '../../support/quiet.js';
import { freePort } from '../../support/telegram-emulator.js';
import { FeishuEmulator, type FeishuSent } from './feishu-emulator.js';

interface Context {
  model: GatewayModel;
  feishu: FeishuEmulator;
  gateway: GatewayProcess;
}

const ENCRYPT_KEY = 'feishu-encrypt-key-for-tests';
const texts = (sent: FeishuSent[]): string[] => sent.map((m) => m.text);

const replies = (read: () => FeishuSent[], count: number, timeoutMs?: number): Promise<FeishuSent[]> =>
  atLeast(read, count, texts, timeoutMs);

const feishu = suite<Context>("tern gateway on Feishu over the SDK's long connection");

feishu.before(async (context) => {
  context.model = await startGatewayModel();
  context.feishu = await FeishuEmulator.start();
  const { appId, appSecret, url } = context.feishu;
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast', transcription_model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      feishu: {
        enabled: true,
        type: 'feishu',
        allow_from: ['*'],
        settings: {
          allow_from: ['*'],
          app_id: appId,
          app_secret: appSecret,
          base_url: url,
          encrypt_key: ENCRYPT_KEY,
          random_reaction_emoji: ['THUMBSUP'],
          group_trigger: { mention_only: true },
          restart_backoff_ms: 200,
        },
      },
      feishu_wrong: {
        enabled: true,
        type: 'feishu',
        settings: { allow_from: ['*'], app_id: appId, app_secret: 'not-the-secret', base_url: url },
      },
    },
  });
});

feishu.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.feishu?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

feishu(
  'a one-to-one message is answered once in a Markdown card, and gets the configured reaction',
  async (context) => {
    const { feishu, gateway } = context;
    const user = feishu.user();
    const event = user.say('**hello** there');
    await replies(user.sent, 1);
    const sent = await quietGateway(gateway.home.sessions, user.sent);
    assert.equal(
      sent.map(({ type, text }) => ({ type, text })),
      [{ type: 'interactive', text: 'echo: **hello** there' }],
    );
    const messageId = (event.event as { message: { message_id: string } }).message.message_id;
    await gateway.waitUntil(() => feishu.reactions.some((r) => r.messageId === messageId));
    assert.equal(
      feishu.reactions.filter((r) => r.messageId === messageId),
      [{ messageId, emoji: 'THUMBSUP' }],
    );
  },
);

feishu(
  'an event is acknowledged once kept, and a redelivery of it gets no second reply',
  async ({ feishu, gateway }) => {
    const user = feishu.user();
    const first = user.say('only once');
    await replies(user.sent, 1);
    const acked = feishu.acked.length;
    feishu.redeliver(first);
    await gateway.waitUntil(() => feishu.acked.length > acked);
    user.say('after the redelivery');
    await replies(user.sent, 2);
    assert.equal(texts(await quietGateway(gateway.home.sessions, user.sent)), [
      'echo: only once',
      'echo: after the redelivery',
    ]);
  },
);

feishu(
  'with mention_only the bot answers an @-mention of it in a group, without the placeholder, not other talk',
  async (context) => {
    const { feishu, gateway } = context;
    const inGroup = (): FeishuSent[] => feishu.sent.filter((m) => m.chatId === 'oc_group1');
    feishu.group('oc_group1', 'just chatting', false);
    feishu.group('oc_group1', 'status please', true);
    await replies(inGroup, 1);
    assert.equal(texts(await quietGateway(gateway.home.sessions, inGroup)), ['echo: status please']);
  },
);

feishu('a card Feishu refuses goes again as plain text', async ({ feishu }) => {
  feishu.refuseCards = true;
  const user = feishu.user();
  user.say('plain please');
  const [reply] = await replies(user.sent, 1);
  feishu.refuseCards = false;
  assert.equal({ type: reply!.type, text: reply!.text }, { type: 'text', text: 'echo: plain please' });
});

feishu('an event encrypted with the Encrypt Key is read and answered', async ({ feishu }) => {
  feishu.encryptKey = ENCRYPT_KEY;
  const user = feishu.user();
  user.say('sealed');
  const [reply] = await replies(user.sent, 1);
  feishu.encryptKey = '';
  assert.is(reply!.text, 'echo: sealed');
});

feishu('a voice message is downloaded from the message resource and transcribed', async ({ feishu }) => {
  const user = feishu.user();
  user.sendVoice(Buffer.from('OggS feishu voice'));
  const [reply] = await replies(user.sent, 1);
  assert.is(reply!.text, `echo: [voice message] ${TRANSCRIPT}`);
});

feishu('a refused App Secret fails that channel saying so', async ({ gateway }) => {
  // Retried after a backoff, so a second read may find it starting again: read the reason from the failed body.
  const failed = await gateway.waitUntil((b) =>
    b.channels.some((c) => c.name === 'feishu_wrong' && c.state === 'failed'),
  );
  assert.match(
    failed.channels.find((c) => c.name === 'feishu_wrong')?.reason ?? '',
    /Feishu bot info: 10014 app secret invalid/,
  );
  assert.is(failed.channels.find((c) => c.name === 'feishu')?.state, 'connected');
});

feishu(
  'after Feishu drops the long connection the channel opens a new one and answers',
  async ({ feishu, gateway }) => {
    const before = feishu.connections();
    feishu.drop();
    await gateway.waitUntil(() => feishu.connections() > before, 30_000);
    await gateway.waitUntil((body) => body.channels.find((c) => c.name === 'feishu')?.state === 'connected');
    const user = feishu.user();
    user.say('are you back');
    const [reply] = await replies(user.sent, 1);
    assert.is(reply!.text, 'echo: are you back');
    assert.is(feishu.connections() - before, 1, 'one new connection, no reconnect storm');
  },
);

feishu('the App Secret and Encrypt Key never reach a log', async ({ feishu, gateway }) => {
  const logs = join(gateway.home.home, 'logs');
  const written =
    readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n') + gateway.stderr();
  assert.ok(written.includes('feishu'));
  assert.not.ok(written.includes(feishu.appSecret));
  assert.not.ok(written.includes(ENCRYPT_KEY));
});

feishu.run();

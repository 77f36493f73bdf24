import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { splitMessage } from '../../../adapters/channels/split.js';
import { LONG_REPLY, startGatewayModel, TRANSCRIPT, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { atLeast, until } from '../../support/eventually.js';
import { quietGateway } from '../../support/quiet.js';
import { received } from '../../support/received.js';
import { freePort } from '../../support/telegram-emulator.js';
import { QqEmulator, type QqSent } from './qq-emulator.js';

interface Context {
  model: GatewayModel;
  qq: QqEmulator;
  markdown: QqEmulator;
  gateway: GatewayProcess;
}

const contents = (sent: QqSent[]): unknown[] =>
  sent.map((m) => m.body.content ?? (m.body.markdown as { content?: string } | undefined)?.content);

const replies = (read: () => QqSent[], count: number, timeoutMs?: number): Promise<QqSent[]> =>
  atLeast(read, count, contents, timeoutMs);

const qq = suite<Context>('tern gateway on the QQ bot platform (OpenAPI and gateway WebSocket)');

qq.before(async (context) => {
  context.model = await startGatewayModel();
  context.qq = await QqEmulator.start();
  context.markdown = await QqEmulator.start();
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast', transcription_model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      qq: {
        enabled: true,
        type: 'qq',
        allow_from: ['*'],
        settings: {
          allow_from: ['*'],
          app_id: context.qq.appId,
          app_secret: context.qq.appSecret,
          base_url: context.qq.url,
          restart_backoff_ms: 200,
        },
      },
      qq_md: {
        enabled: true,
        type: 'qq',
        settings: {
          allow_from: ['*'],
          app_id: context.markdown.appId,
          app_secret: context.markdown.appSecret,
          base_url: context.markdown.url,
          send_markdown: true,
        },
      },
      qq_wrong: {
        enabled: true,
        type: 'qq',
        allow_from: ['*'],
        settings: { app_id: context.qq.appId, app_secret: 'not-the-secret', base_url: context.qq.url },
      },
    },
  });
});

qq.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.qq?.close();
  await context.markdown?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

qq('the gateway session identifies with the token and asks for private, group and guild @-messages', ({ qq }) => {
  const identify = qq.identifies.find((i) => i.token.startsWith('QQBot qqtoken'));
  assert.ok(identify, JSON.stringify(qq.identifies));
  assert.is(identify!.intents, (1 << 25) | (1 << 30));
});

/** The `msg_seq` of every message posted as a reply to `msgId`: QQ drops a repeated one, so each must be new. */
const seqs = (qq: QqEmulator, msgId: string): unknown[] =>
  qq.posted.filter((m) => m.body.msg_id === msgId).map((m) => m.body.msg_seq);

qq('a private message gets "typing…", then exactly one passive reply to it', async ({ qq, gateway }) => {
  const user = qq.user();
  const asked = user.say('hello there');
  await replies(user.sent, 1);
  const sent = await quietGateway(gateway.home.sessions, user.sent);
  assert.equal(
    sent.map((m) => m.body),
    [{ msg_type: 0, content: 'echo: hello there', msg_id: asked, msg_seq: 2 }],
  );
  const notice = qq.posted.find((m) => m.body.msg_type === 6 && m.body.msg_id === asked);
  assert.equal(notice?.body, {
    msg_type: 6,
    input_notify: { input_type: 1, input_second: 60 },
    msg_id: asked,
    msg_seq: 1,
  });
});

qq('each answer is a passive reply to its own message, when the user wrote again before it', async (context) => {
  const { qq, model, gateway } = context;
  const user = qq.user();
  const first = user.say('HOLD first');
  await until('the model asked', () => (model.asked.includes('HOLD first') ? true : undefined), 60_000);
  const second = user.say('second');
  await until('the second in the log', () => (received(gateway.home.sessions, second) ? true : undefined), 60_000);
  model.release();
  await replies(user.sent, 2);
  const sent = await quietGateway(gateway.home.sessions, user.sent);
  assert.equal(
    sent.map((m) => [m.body.content, m.body.msg_id]),
    [
      ['echo: HOLD first', first],
      ['echo: second', second],
    ],
  );
});

qq(
  "a long reply is split at 2,000 characters (the peer's max_message_length), each part numbered",
  async ({ qq, gateway }) => {
    const user = qq.user();
    const asked = user.say('LONG answer');
    const expected = splitMessage(LONG_REPLY, 2000);
    await replies(user.sent, expected.length);
    const sent = await quietGateway(gateway.home.sessions, user.sent);
    assert.ok(sent.every((m) => m.body.msg_id === asked));
    const numbers = seqs(qq, asked);
    assert.equal(
      numbers,
      numbers.map((_, i) => i + 1),
      'every part and notice has its own msg_seq, in order',
    );
    assert.ok(sent.every((m) => String(m.body.content).length <= 2000));
  },
);

qq(
  'a group @-message is answered in the group, a guild channel @-message in the channel, mention removed',
  async ({ qq, gateway }) => {
    const group = qq.groupAt('GROUPOPENID1', 'MEMBER1', 'who are you');
    const channel = qq.channelAt('GUILD9', 'CHANNEL7', 'USER7', 'and here?');
    await replies(() => [...qq.sentTo('group:GROUPOPENID1'), ...qq.sentTo('channel:CHANNEL7')], 2);
    const inGroup = await quietGateway(gateway.home.sessions, () => qq.sentTo('group:GROUPOPENID1'));
    assert.equal(
      inGroup.map((m) => m.body),
      [{ msg_type: 0, content: 'echo: who are you', msg_id: group, msg_seq: 1 }],
    );
    assert.equal(
      qq.sentTo('channel:CHANNEL7').map((m) => m.body),
      [{ msg_type: 0, content: 'echo: and here?', msg_id: channel, msg_seq: 1 }],
    );
  },
);

qq('a voice message is fetched (its WAV) and transcribed before the turn', async ({ qq }) => {
  const user = qq.user();
  user.sendVoice(Buffer.from('RIFF qq voice'));
  const [reply] = await replies(user.sent, 1);
  assert.is(reply!.body.content, `echo: [voice message] ${TRANSCRIPT}`);
});

qq('with send_markdown the reply goes as QQ Markdown (msg_type 2)', async ({ markdown }) => {
  const user = markdown.user();
  user.say('**bold**');
  const [reply] = await replies(user.sent, 1);
  assert.equal(
    { msg_type: reply!.body.msg_type, markdown: reply!.body.markdown, content: reply!.body.content },
    { msg_type: 2, markdown: { content: 'echo: **bold**' }, content: undefined },
  );
});

qq('a refused AppSecret fails that channel saying so, and the good one keeps answering', async ({ gateway }) => {
  // Retried after a backoff, so a second read may find it starting again: read the reason from the failed body.
  const failed = await gateway.waitUntil((b) => b.channels.some((c) => c.name === 'qq_wrong' && c.state === 'failed'));
  assert.match(
    failed.channels.find((c) => c.name === 'qq_wrong')?.reason ?? '',
    /QQ refused the AppID and AppSecret \(100016 invalid appid or secret\)/,
  );
  assert.is(failed.channels.find((c) => c.name === 'qq')?.state, 'connected');
});

qq('when the platform closes the gateway session the bot logs in again and answers', async ({ qq, gateway }) => {
  const before = qq.connections();
  qq.dropSessions();
  await gateway.waitUntil(() => qq.connections() > before, 30_000);
  await gateway.waitUntil((body) => body.channels.find((c) => c.name === 'qq')?.state === 'connected');
  const user = qq.user();
  user.say('are you back');
  const [reply] = await replies(user.sent, 1);
  assert.is(reply!.body.content, 'echo: are you back');
});

qq('the AppSecret and access tokens never reach a log', async ({ qq, gateway }) => {
  const logs = join(gateway.home.home, 'logs');
  const written =
    readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n') + gateway.stderr();
  assert.ok(written.includes('qq'));
  assert.not.ok(written.includes(qq.appSecret));
  assert.not.ok(/qqtoken[0-9A-F]{24}/.test(written));
});

qq.run();

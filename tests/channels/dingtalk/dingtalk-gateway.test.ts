import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startGatewayModel, TRANSCRIPT, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { atLeast } from '../../support/eventually.js';
import { quietGateway } from '../../support/quiet.js';
import { freePort } from '../../support/telegram-emulator.js';
import { DingTalkEmulator, type DingTalkSent } from './dingtalk-emulator.js';

interface Context {
  model: GatewayModel;
  dingtalk: DingTalkEmulator;
  gateway: GatewayProcess;
}

const texts = (sent: DingTalkSent[]): string[] => sent.map((m) => m.text);

const replies = (read: () => DingTalkSent[], count: number, timeoutMs?: number): Promise<DingTalkSent[]> =>
  atLeast(read, count, texts, timeoutMs);

const dingtalk = suite<Context>('tern gateway on DingTalk in Stream mode');

dingtalk.before(async (context) => {
  context.model = await startGatewayModel();
  context.dingtalk = await DingTalkEmulator.start();
  const { clientId, clientSecret, url } = context.dingtalk;
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast', transcription_model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      dingtalk: {
        enabled: true,
        type: 'dingtalk',
        allow_from: ['*'],
        settings: { client_id: clientId, client_secret: clientSecret, base_url: url, restart_backoff_ms: 200 },
      },
      dingtalk_wrong: {
        enabled: true,
        type: 'dingtalk',
        settings: { allow_from: ['*'], client_id: clientId, client_secret: 'not-the-secret', base_url: url },
      },
    },
  });
});

dingtalk.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.dingtalk?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

dingtalk(
  'a one-to-one message is answered once through its session webhook, in Markdown with a title',
  async ({ dingtalk, gateway }) => {
    const user = dingtalk.user();
    user.say('**hello** there');
    await replies(user.sent, 1);
    const sent = await quietGateway(gateway.home.sessions, user.sent);
    assert.equal(
      sent.map(({ via, title, text }) => ({ via, title, text })),
      [{ via: 'webhook', title: 'echo: hello there', text: 'echo: **hello** there' }],
    );
  },
);

dingtalk(
  'a message is acknowledged once kept, and a redelivery of it gets no second reply',
  async ({ dingtalk, gateway }) => {
    const user = dingtalk.user();
    const first = user.say('only once');
    await replies(user.sent, 1);
    const acked = dingtalk.acked.length;
    dingtalk.redeliver(first);
    await gateway.waitUntil(() => dingtalk.acked.length > acked);
    user.say('after the redelivery');
    await replies(user.sent, 2);
    assert.equal(texts(await quietGateway(gateway.home.sessions, user.sent)), [
      'echo: only once',
      'echo: after the redelivery',
    ]);
  },
);

dingtalk('a group @-message is answered in the group', async ({ dingtalk, gateway }) => {
  dingtalk.groupAt('cidGROUP1==', 'status please');
  await replies(() => dingtalk.sent.filter((m) => m.to === 'cidGROUP1=='), 1);
  const sent = await quietGateway(gateway.home.sessions, () => dingtalk.sent.filter((m) => m.to === 'cidGROUP1=='));
  assert.equal(
    sent.map(({ via, text }) => ({ via, text })),
    [{ via: 'webhook', text: 'echo: status please' }],
  );
});

dingtalk(
  'a picture the agent sends in a group is uploaded as an image and posted by media id, its caption after it',
  async ({ dingtalk, gateway }) => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    writeFileSync(join(gateway.home.workspace, 'chart.png'), png);
    const inGroup = (): DingTalkSent[] => dingtalk.sent.filter((m) => m.to === 'cidPICTURE==');
    dingtalk.groupAt('cidPICTURE==', 'FILE chart.png the chart');
    await replies(inGroup, 3);
    const sent = await quietGateway(gateway.home.sessions, inGroup);
    assert.equal(
      sent.map(({ via, msgKey, text, file }) => ({ via, msgKey, text, file })),
      [
        {
          via: 'groupSend',
          msgKey: 'sampleImageMsg',
          text: '',
          file: { name: 'chart.png', bytes: png, type: 'image' },
        },
        { via: 'webhook', msgKey: 'sampleMarkdown', text: 'the chart', file: undefined },
        { via: 'webhook', msgKey: 'sampleMarkdown', text: 'sent', file: undefined },
      ],
    );
  },
);

dingtalk(
  'once the session webhook has expired the reply goes through the OpenAPI to the user',
  async ({ dingtalk }) => {
    dingtalk.expireWebhooks = true;
    const user = dingtalk.user();
    user.say('late answer');
    const [reply] = await replies(user.sent, 1);
    dingtalk.expireWebhooks = false;
    assert.equal(
      { via: reply!.via, to: reply!.to, text: reply!.text },
      { via: 'batchSend', to: user.staffId, text: 'echo: late answer' },
    );
  },
);

dingtalk('a voice message is downloaded by its code and transcribed before the turn', async ({ dingtalk }) => {
  const user = dingtalk.user();
  user.sendVoice(Buffer.from('#!AMR dingtalk voice'));
  const [reply] = await replies(user.sent, 1);
  assert.is(reply!.text, `echo: [voice message] ${TRANSCRIPT}`);
});

dingtalk('a refused client secret fails that channel saying so', async ({ gateway }) => {
  // Retried after a backoff, so a second read may find it starting again: read the reason from the failed body.
  const failed = await gateway.waitUntil((b) =>
    b.channels.some((c) => c.name === 'dingtalk_wrong' && c.state === 'failed'),
  );
  assert.match(
    failed.channels.find((c) => c.name === 'dingtalk_wrong')?.reason ?? '',
    /DingTalk access token: invalidClientIdOrSecret/,
  );
  assert.is(failed.channels.find((c) => c.name === 'dingtalk')?.state, 'connected');
});

dingtalk('after DingTalk drops the stream the channel opens a new one and answers', async ({ dingtalk, gateway }) => {
  const before = dingtalk.connections();
  dingtalk.drop();
  await gateway.waitUntil(() => dingtalk.connections() > before, 30_000);
  await gateway.waitUntil((body) => body.channels.find((c) => c.name === 'dingtalk')?.state === 'connected');
  const user = dingtalk.user();
  user.say('are you back');
  const [reply] = await replies(user.sent, 1);
  assert.is(reply!.text, 'echo: are you back');
  assert.is(dingtalk.connections() - before, 1, 'one new connection, no reconnect storm');
});

dingtalk('the client secret and access tokens never reach a log', async ({ dingtalk, gateway }) => {
  const logs = join(gateway.home.home, 'logs');
  const written =
    readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n') + gateway.stderr();
  assert.ok(written.includes('dingtalk'));
  assert.not.ok(written.includes(dingtalk.clientSecret));
});

dingtalk.run();

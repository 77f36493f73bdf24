import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { splitMessage } from '../../../adapters/channels/split.js';
import { ONEBOT_MAX_LENGTH } from '../../../adapters/channels/onebot/onebot.js';
import { LONG_REPLY, startGatewayModel, TRANSCRIPT, type GatewayModel } from '../../support/gateway-model.js';
import { modelEntry, startGatewayProcess, type GatewayProcess } from '../../support/gateway-process.js';
import { atLeast } from '../../support/eventually.js';
import { quietGateway } from '../../support/quiet.js';
import { freePort } from '../../support/telegram-emulator.js';
import { OneBotEmulator, type BotMessage } from './onebot-emulator.js';

interface Context {
  model: GatewayModel;
  onebot: OneBotEmulator;
  gateway: GatewayProcess;
}

const GROUP = 880_001;
const texts = (messages: BotMessage[]): string[] => messages.map((m) => m.text);

const replies = (read: () => BotMessage[], count: number, timeoutMs?: number): Promise<BotMessage[]> =>
  atLeast(read, count, texts, timeoutMs);

const onebot = suite<Context>('tern gateway on a OneBot v11 implementation (NapCat / Lagrange)');

onebot.before(async (context) => {
  context.model = await startGatewayModel();
  context.onebot = await OneBotEmulator.start();
  // The peer runtime's own shape: audience and group trigger beside `settings`, its field names inside.
  context.gateway = await startGatewayProcess({
    gateway: { host: '127.0.0.1', port: await freePort(), log_level: 'debug' },
    agents: { defaults: { model: 'fast', transcription_model: 'fast' } },
    model_list: [modelEntry(context.model.url)],
    heartbeat: { enabled: false },
    channel_list: {
      onebot: {
        enabled: true,
        type: 'onebot',
        allow_from: ['*'],
        group_trigger: { prefixes: ['/ask'] },
        settings: { ws_url: context.onebot.url, access_token: context.onebot.accessToken, reconnect_interval: 1 },
      },
      onebot_wrong: {
        enabled: true,
        type: 'onebot',
        settings: { allow_from: ['*'], ws_url: context.onebot.url, access_token: 'not-the-token' },
      },
    },
  });
});

onebot.after(async (context) => {
  if (context.gateway?.child.exitCode === null) await context.gateway.stop();
  await context.onebot?.close();
  await context.model?.close();
  context.gateway?.home.remove();
});

onebot('a private message gets exactly one reply, as a text segment to that user', async ({ onebot, gateway }) => {
  const alice = onebot.user('alice');
  alice.say('hello there');
  const [reply] = await replies(alice.sent, 1);
  assert.equal(reply!.segments, [{ type: 'text', data: { text: 'echo: hello there' } }]);
  assert.equal(texts(await quietGateway(gateway.home.sessions, alice.sent)), ['echo: hello there']);
});

onebot(
  "in a group only messages with the peer's trigger prefix or an @ of the bot are answered, in the group",
  async ({ onebot, gateway }) => {
    const member = onebot.user('carol');
    onebot.inGroup(GROUP, member.id, [{ type: 'text', data: { text: 'just chatting' } }]);
    onebot.inGroup(GROUP, member.id, [{ type: 'text', data: { text: '/ask what time is it' } }]);
    onebot.inGroup(GROUP, member.id, `[CQ:at,qq=${onebot.selfId}] are you there &#91;1&#93;`);
    await replies(() => onebot.sentTo(`group:${GROUP}`), 2);
    const answered = texts(await quietGateway(gateway.home.sessions, () => onebot.sentTo(`group:${GROUP}`))).sort();
    assert.equal(answered, ['echo: are you there [1]', 'echo: what time is it']);
  },
);

onebot('a voice message is fetched from its URL and transcribed before the turn', async ({ onebot }) => {
  const dave = onebot.user('dave');
  dave.sendVoice(Buffer.from('#!AMR onebot voice'));
  const [reply] = await replies(dave.sent, 1);
  assert.is(reply!.text, `echo: [voice message] ${TRANSCRIPT}`);
});

onebot(
  `a long reply is split at ${ONEBOT_MAX_LENGTH} characters into as many messages`,
  async ({ onebot, gateway }) => {
    const erin = onebot.user('erin');
    erin.say('LONG please');
    const expected = splitMessage(LONG_REPLY, ONEBOT_MAX_LENGTH);
    await replies(erin.sent, expected.length);
    const parts = texts(await quietGateway(gateway.home.sessions, erin.sent));
    assert.is(parts.length, expected.length);
    assert.ok(parts.every((part) => part.length <= ONEBOT_MAX_LENGTH));
  },
);

onebot(
  'a refused access token fails that channel with the reason, and the other one keeps answering',
  async ({ gateway }) => {
    // It is retried after a backoff, so a second read may find it starting again: assert on the body that was failed.
    const body = await gateway.waitUntil((b) =>
      b.channels.some((c) => c.name === 'onebot_wrong' && c.state === 'failed'),
    );
    const wrong = body.channels.find((c) => c.name === 'onebot_wrong');
    assert.match(wrong?.reason ?? '', /the OneBot implementation refused the access token \(HTTP 401\)/);
    assert.is(body.channels.find((c) => c.name === 'onebot')?.state, 'connected');
  },
);

onebot(
  'after the implementation drops the connection it reconnects, with backoff, and answers again',
  async ({ onebot, gateway }) => {
    const before = onebot.connections();
    await onebot.outage(1500);
    await gateway.waitUntil((body) => body.channels.find((c) => c.name === 'onebot')?.state === 'connected', 30_000);
    const frank = onebot.user('frank');
    frank.say('are you back');
    await replies(frank.sent, 1);
    const attempts = onebot.connections() - before;
    assert.ok(attempts >= 1 && attempts <= 3, `${attempts} connections after a 1.5 s outage with a 1 s first wait`);
  },
);

onebot('the access token never reaches a log', async ({ onebot, gateway }) => {
  const logs = join(gateway.home.home, 'logs');
  const written =
    readdirSync(logs)
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n') + gateway.stderr();
  assert.ok(written.includes('onebot'), 'the logs are about the channel');
  assert.not.ok(written.includes(onebot.accessToken));
});

onebot.run();

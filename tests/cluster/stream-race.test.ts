// A `tern gateway --cluster` member running a Telegram bot whose account stream gets a write from another writer (as
// from a member that took the account over while this one still wrote): the member's next write loses the race for
// the stream's next seq. It gives the account up cleanly and, holding the lease still, runs it again on the stream as
// it is now; the message whose write lost is answered once. And a member stopped right after losing exits at once.
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { validateDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { STREAM_PREFIXES, accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { logLines } from '../support/clocked-gateway.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '744444:race-bot-DDDD';
const USER = 7001;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  member?: GatewayProcess;
  nc?: NatsConnection;
}

const { test, suite } = natsSuite<Context>("a member that loses the race for its account's stream");

suite.after.each(async (context) => {
  await context.member?.stop();
  // Each test's emulator numbers its messages from 1 again: the next test must not find this one's in the stream,
  // or its first message reads as a redelivery of this one's and is never answered.
  if (context.nc) {
    const streams = (await jetstreamManager(context.nc)).streams;
    for await (const { config } of streams.list())
      if (STREAM_PREFIXES.some((prefix) => config.name.startsWith(prefix))) await streams.delete(config.name);
  }
  await context.nc?.close();
  await context.emulator?.stop();
  await context.model?.close();
  context.member?.home.remove();
  Object.assign(context, { member: undefined, nc: undefined, emulator: undefined, model: undefined });
});

const gatewayLog = (member: GatewayProcess): string[] => logLines(join(member.home.home, 'logs', 'gateway.log'));

/**
 * One member running account `tg1` on the emulator, having answered a first message (so its account's gateway runs
 * and writes); then another writer appends one event to the account's stream, and the user says `texts`.
 */
async function raceAfterAnswer(
  context: Context & { server: { url: string } },
  texts: string[],
): Promise<{ member: GatewayProcess; taken: number; updates: number[] }> {
  context.model = await startGatewayModel();
  context.emulator = await TelegramEmulator.start(undefined, { offsets: true });
  const channels = telegramAccounts(['tg1'], [TOKEN], context.emulator.url);
  const member = await startGatewayProcess(
    await memberConfig({ url: context.server.url, id: 'node-a', modelUrl: context.model.url, channels }),
  );
  context.member = member;
  const nc = await connectCluster(context.server.url);
  context.nc = nc;
  await until(
    'node-a to hold tg1',
    async () =>
      (await leasesOf(nc, 'channel')).some((l) => l.id === 'tg1' && l.gateway === 'node-a') ? true : undefined,
    60_000,
  );
  await context.emulator.say(TOKEN, 'first', { userId: USER });
  await context.emulator.waitForBotMessages(TOKEN, USER, 1, 60_000);
  // The other writer: the same store a member opens on taking the account, appending what a starting gateway does.
  // Node-a may still be writing the first answer's records; the other writer tries until its event is in.
  const taken = await until(
    'the other writer to append',
    async () => {
      const other = await JetStreamEventStore.open(nc, { ...accountLog('tg1'), gateway: 'node-b' });
      try {
        const { seq } = other.append(
          validateDraft({ type: 'channel.connected', data: { channel: 'tg1', account: 'tg1' } }),
        );
        return await other.flushed().then(
          () => seq,
          () => undefined,
        );
      } finally {
        other.close();
      }
    },
    30_000,
  );
  const updates: number[] = [];
  for (const text of texts) updates.push(await context.emulator.say(TOKEN, text, { userId: USER }));
  return { member, taken, updates };
}

test(
  'the message whose write lost the race is answered once, ' + 'by the account run again on the stream as it is now',
  async (context) => {
    const { member, taken } = await raceAfterAnswer(context, ['second']);
    const answers = await context.emulator!.waitForBotMessages(TOKEN, USER, 2, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}; node-a logged:\n${gatewayLog(member).slice(-15).join('\n')}`);
    });
    const log = await JetStreamEventStore.open(context.nc!, { ...accountLog('tg1'), readOnly: true });
    try {
      // Settled once the reply's delivery is in the stream: nothing more is sent after.
      await until(
        'the second reply to be delivered in the stream',
        () => (log.read({ type: 'reply.delivered' }).length === 2 ? true : undefined),
        30_000,
      );
      assert.equal(
        context.emulator!.botMessages(TOKEN, USER).map((m) => m.text),
        ['echo: first', 'echo: second'],
      );
      assert.is(answers.length, 2);
      const received = log
        .read({ type: 'message.received' })
        .map((e) => [(e.data as { text: string }).text, e.gateway]);
      assert.equal(received, [
        ['first', 'node-a'],
        ['second', 'node-a'],
      ]);
      // A part the losing writer sent may have had its `message.sent` refused with the rest of its writes: the account,
      // run again on the stream, finds the part marked as leaving, does not send it again and says so in its log.
      const sent = log.read({ type: 'message.sent' }).length;
      const unconfirmed = gatewayLog(member).filter((line) =>
        line.startsWith('WARN a reply part was being sent'),
      ).length;
      assert.is(sent + unconfirmed, 2, `${sent} recorded sent, ${unconfirmed} named as maybe sent`);
    } finally {
      log.close();
    }
    const lines = gatewayLog(member);
    const warned = lines.filter((line) => line.startsWith('WARN cluster: another writer appended'));
    assert.equal(warned, [
      `WARN cluster: another writer appended to the channel account's stream; its gateway here stops ` +
        `channel=tg1 reason="another writer appended to the event stream TERN_CH_tg1 (seq ${taken} is taken)"`,
    ]);
    assert.equal(
      lines.filter((line) => line.startsWith('INFO gateway started url= ')),
      ['INFO gateway started url= channels=tg1', 'INFO gateway started url= channels=tg1'],
    );
    assert.equal(
      lines.filter((line) => line.startsWith('ERROR')),
      [],
      lines.join('\n'),
    );
    assert.is(member.stderr().includes('unexpected error'), false, member.stderr());
    assert.is(await member.stop(10_000), 0);
  },
);

test(
  'a member stopped right after its write lost the race ' + 'exits within 5 s of SIGINT, with no "unexpected error"',
  async (context) => {
    const { member, updates } = await raceAfterAnswer(context, ['second']);
    // Its poller has the message: writing it into the account's stream is what loses the race.
    await until(
      'node-a to fetch the message',
      () => (context.emulator!.fetched(updates[0]!) ? true : undefined),
      30_000,
    );
    const started = Date.now();
    const code = await member.stop(5_000);
    const tookMs = Date.now() - started;
    assert.is(code, 0, member.stderr());
    assert.is(member.stderr().includes('unexpected error'), false, member.stderr());
    assert.ok(tookMs < 5_000, `exited ${tookMs} ms after SIGINT`);
    assert.ok(
      gatewayLog(member).some((line) => line.startsWith('WARN cluster: another writer appended')),
      gatewayLog(member).join('\n'),
    );
  },
);

suite.run();

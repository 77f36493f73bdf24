// `channel_list` edited while a cluster runs (#27): two `tern gateway --cluster` members, their config files changed
// in place. A bot added is leased and polled by exactly one member (its messages answered once); a bot removed is
// released and stopped on every member (its lease gone, its messages no longer answered).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import { connectCluster } from '../../store/cluster/connection.js';
import { listMembers } from '../../store/cluster/members.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { quietValue } from '../support/quiet.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKENS = ['834444:reload-bot-one-AAAA', '845555:reload-bot-two-BBBB'];
const NODES = ['node-a', 'node-b'];

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
  view?: ClusterLogView;
}

const { test, suite, after } = natsSuite<Context>('channel_list reloaded in a cluster');

/**
 * Resolves once every member has renewed its member entry `count` times from now: each had as many heartbeats (the
 * moments it takes leases it wants) to do what it should not.
 */
async function heartbeats(nc: NatsConnection, count: number): Promise<void> {
  const since = Date.now();
  const seen = new Map<string, Set<number>>();
  await until(
    `${count} heartbeats of every member`,
    async () => {
      for (const member of await listMembers(nc)) {
        if (member.seenAt > since) seen.set(member.gateway, (seen.get(member.gateway) ?? new Set()).add(member.seenAt));
      }
      return NODES.every((id) => (seen.get(id)?.size ?? 0) >= count) ? true : undefined;
    },
    30_000,
    () => Object.fromEntries([...seen].map(([id, times]) => [id, times.size])),
  );
}

suite.before.each((context) => {
  context.gateways = [];
});

after(async (context) => {
  context.view?.close();
  await context.nc?.close();
  for (const gateway of context.gateways) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
});

/** The channel leases as `<account> <member>`, sorted. */
async function channelLeases(nc: NatsConnection): Promise<string[]> {
  return (await leasesOf(nc, 'channel')).map((l) => `${l.id} ${l.gateway}`).sort();
}

test(
  'a bot added to channel_list is run by one member; ' + 'a bot removed is released and stopped everywhere',
  async (context) => {
    const { server } = context;
    context.model = await startGatewayModel();
    const emulator = (context.emulator = await TelegramEmulator.start(undefined, { offsets: true }));
    const configs = await Promise.all(
      NODES.map((id) =>
        memberConfig({
          url: server.url,
          id,
          modelUrl: context.model!.url,
          channels: telegramAccounts(['tg1'], [TOKENS[0]!], emulator.url),
        }),
      ),
    );
    for (const config of configs) context.gateways.push(await startGatewayProcess(config));
    const nc = (context.nc = await connectCluster(server.url));
    await until(
      'one member to run tg1',
      async () => ((await channelLeases(nc)).length === 1 ? true : undefined),
      30_000,
    );
    const rewrite = (channels: Record<string, unknown>): void => {
      for (const [i, gateway] of context.gateways.entries()) {
        writeFileSync(
          join(gateway.home.home, 'config.json'),
          JSON.stringify({ version: 2, ...configs[i], channel_list: channels }, null, 2),
        );
      }
    };

    rewrite(telegramAccounts(['tg1', 'tg2'], TOKENS, emulator.url));
    const both = await until(
      'both bots to be leased',
      async () => {
        const leases = await channelLeases(nc);
        return leases.length === 2 ? leases : undefined;
      },
      30_000,
      () => channelLeases(nc),
    );
    assert.equal(
      both.map((l) => l.split(' ')[0]),
      ['tg1', 'tg2'],
    );
    // The members share the two bots, one each.
    await until(
      'the bots to be spread over the members',
      async () => {
        const leases = await channelLeases(nc);
        return new Set(leases.map((l) => l.split(' ')[1])).size === 2 ? leases : undefined;
      },
      30_000,
      () => channelLeases(nc),
    );
    for (const [i, token] of TOKENS.entries()) await emulator.say(token, `hi ${i}`, { userId: 7501 + i });
    for (const [i, token] of TOKENS.entries()) await emulator.waitForBotMessages(token, 7501 + i, 1, 30_000);
    // A bot run by both members would answer twice: what the chats show stays the same for a second.
    const chats = () => TOKENS.map((token, i) => emulator.botMessages(token, 7501 + i).map((m) => m.text));
    const answered = await quietValue(chats, { quietMs: 1_000 });
    for (const [i] of TOKENS.entries()) assert.equal(answered[i], [`echo: hi ${i}`]);

    const view = (context.view = await ClusterLogView.open(nc));
    const removedAt = Date.now();
    rewrite(telegramAccounts(['tg2'], [TOKENS[1]!], emulator.url));
    const left = await until(
      'tg1 to be released',
      async () => {
        const leases = await channelLeases(nc);
        return leases.length === 1 ? leases : undefined;
      },
      30_000,
      () => channelLeases(nc),
    );
    assert.equal(
      left.map((l) => l.split(' ')[0]),
      ['tg2'],
    );
    const released = await until(
      'the release to be logged',
      () => {
        const events = view
          .read({ type: 'cluster.lease.released', since: removedAt })
          .filter((e) => e.type === 'cluster.lease.released' && e.data.id === 'tg1');
        return events.length > 0 ? events : undefined;
      },
      10_000,
    );
    assert.equal(
      released.map((e) => e.type === 'cluster.lease.released' && e.data.reason),
      ['released'],
    );
    // Nobody polls tg1 any more: a message to it stays unanswered, and no member takes its lease again.
    await emulator.say(TOKENS[0]!, 'anyone?', { userId: 7501 });
    await heartbeats(nc, 3);
    assert.equal(
      emulator.botMessages(TOKENS[0]!, 7501).map((m) => m.text),
      ['echo: hi 0'],
    );
    assert.equal(await channelLeases(nc), left);
    assert.equal(
      view
        .read({ type: 'cluster.lease.acquired', since: removedAt })
        .filter((e) => e.type === 'cluster.lease.acquired' && e.data.id === 'tg1'),
      [],
    );
    // tg2 still answers.
    await emulator.say(TOKENS[1]!, 'still here', { userId: 7502 });
    await emulator.waitForBotMessages(TOKENS[1]!, 7502, 2, 30_000);
    assert.equal(
      emulator.botMessages(TOKENS[1]!, 7502).map((m) => m.text),
      ['echo: hi 1', 'echo: still here'],
    );
  },
);

suite.run();

// The NATS server of a cluster killed with SIGKILL and started again on the same store (#27): the members reconnect,
// the messages that arrived while it was down are answered once it is back, each exactly once, and the members keep
// their channel accounts (the server was back within the lease TTL).
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { connectCluster } from '../../store/cluster/connection.js';
import { leasesOf, memberConfig, telegramAccounts } from '../support/cluster-gateways.js';
import { logLines } from '../support/clocked-gateway.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKENS = ['801111:restart-bot-one-AAAA', '812222:restart-bot-two-BBBB'];
const ACCOUNTS = ['tg1', 'tg2'];
const USERS = [7301, 7302];
const TTL_MS = 10_000;

interface Context {
  model?: GatewayModel;
  emulator?: TelegramEmulator;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
}

const { test, suite, after } = natsSuite<Context>("the cluster's NATS server restarted");

after(async (context) => {
  await context.nc?.close();
  for (const gateway of context.gateways ?? []) await gateway.stop();
  await context.emulator?.stop();
  await context.model?.close();
  for (const gateway of context.gateways ?? []) gateway.home.remove();
});

test(
  'messages sent while the server was down are answered once it is back, ' +
    'exactly once, by the members that held their bots',
  async (context) => {
    const { server } = context;
    context.gateways = [];
    context.model = await startGatewayModel();
    const emulator = (context.emulator = await TelegramEmulator.start(undefined, { offsets: true }));
    const channels = telegramAccounts(ACCOUNTS, TOKENS, emulator.url);
    for (const id of ['node-a', 'node-b'])
      context.gateways.push(
        await startGatewayProcess(
          await memberConfig({ url: server.url, id, modelUrl: context.model.url, channels, ttlMs: TTL_MS }),
        ),
      );
    let nc = (context.nc = await connectCluster(server.url));
    const spread = async () => {
      const leases = await leasesOf(nc, 'channel');
      return new Set(leases.map((l) => l.gateway)).size === 2
        ? Object.fromEntries(leases.map((l) => [l.id, l.gateway]))
        : undefined;
    };
    const before = await until('each member to run one bot', spread, 60_000, () => leasesOf(nc, 'channel'));
    for (const [i, token] of TOKENS.entries()) await emulator.say(token, 'before', { userId: USERS[i] });
    for (const [i, token] of TOKENS.entries()) await emulator.waitForBotMessages(token, USERS[i]!, 1, 60_000);

    await nc.close();
    await server.kill9();
    for (const [i, token] of TOKENS.entries()) await emulator.say(token, 'during', { userId: USERS[i] });
    // The server comes back once both members have noticed it is gone.
    const lines = (gateway: GatewayProcess) => logLines(join(gateway.home.home, 'logs', 'gateway.log'));
    const lost = (gateway: GatewayProcess) => lines(gateway).some((line) => line.startsWith('WARN cluster: lost the'));
    await until('both members to lose the server', () => (context.gateways.every(lost) ? true : undefined), 60_000);
    await server.restart();
    nc = context.nc = await connectCluster(server.url);
    for (const [i, token] of TOKENS.entries()) await emulator.waitForBotMessages(token, USERS[i]!, 2, 120_000);
    for (const [i, token] of TOKENS.entries()) await emulator.say(token, 'after', { userId: USERS[i] });
    for (const [i, token] of TOKENS.entries()) await emulator.waitForBotMessages(token, USERS[i]!, 3, 120_000);
    // Nothing more is on its way once every reply is in: a second copy would have come before the third answer.
    for (const [i, token] of TOKENS.entries())
      assert.equal(
        emulator.botMessages(token, USERS[i]!).map((m) => m.text),
        ['echo: before', 'echo: during', 'echo: after'],
      );
    assert.equal(await spread(), before, 'each member still runs the bot it ran');
  },
);

suite.run();

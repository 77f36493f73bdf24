// The heartbeat and cron run once per cluster (#27): two `tern gateway --cluster` members share a workspace with one
// cron job every 2 s; only the member holding the schedule lease runs it (and its heartbeat), once per tick. After a
// SIGKILL of that member the other takes the lease over and the job goes on there, still once per tick.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { putCronJob } from '../../store/cron-db.js';
import { readClusterActors } from '../../store/log/cluster-actors.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { leasesOf, logged, memberConfig } from '../support/cluster-gateways.js';
import { until } from '../support/eventually.js';
import { startGatewayModel, type GatewayModel } from '../support/gateway-model.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { natsSuite } from '../support/nats-server.js';
import { deliverJob } from '../cron/cron-harness.js';

const EVERY_S = 2;
const NODES = ['node-a', 'node-b'];

interface Context {
  model?: GatewayModel;
  gateways: GatewayProcess[];
  nc?: NatsConnection;
  view?: ClusterLogView;
  shared?: string;
}

const { test, suite, after } = natsSuite<Context>('heartbeat and cron once per cluster');

suite.before.each((context) => {
  context.gateways = [];
});

after(async (context) => {
  context.view?.close();
  await context.nc?.close();
  for (const gateway of context.gateways) await gateway.stop();
  await context.model?.close();
  for (const gateway of context.gateways) gateway.home.remove();
  if (context.shared) rmSync(context.shared, { recursive: true, force: true });
});

/** The heartbeat actor's state on each member, from the cluster's events. */
function heartbeats(view: ClusterLogView): Record<string, string> {
  const states: Record<string, string> = {};
  for (const stream of readClusterActors(view).values()) {
    const heartbeat = stream.actors.get('heartbeat');
    if (heartbeat && stream.stream.startsWith('TERN_GW_') && stream.gateway) states[stream.gateway] = heartbeat.state;
  }
  return states;
}

/** Runs of the job by one gateway are a tick apart: never two in the same tick. */
function spacedByTicks(fired: Envelope[]): void {
  for (let i = 1; i < fired.length; i++) {
    const gap = fired[i]!.at - fired[i - 1]!.at;
    assert.ok(gap >= EVERY_S * 1000 * 0.75, `runs ${fired[i - 1]!.seq} and ${fired[i]!.seq} came ${gap} ms apart`);
  }
}

test(
  "only the schedule lease's holder runs the cron job and its heartbeat; " +
    'after its SIGKILL the other member goes on, once per tick',
  async (context) => {
    const { server } = context;
    context.model = await startGatewayModel();
    context.shared = mkdtempSync(join(tmpdir(), 'tern-shared-'));
    const workspace = join(context.shared, 'workspace');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'HEARTBEAT.md'), '- check the weather\n');
    await putCronJob(workspace, {
      ...deliverJob('tick', { kind: 'every', seconds: EVERY_S }),
      job: { kind: 'command', command: 'echo tick' },
    });
    for (const id of NODES) {
      const extra = { agents: { defaults: { model: 'fast', workspace } }, heartbeat: { enabled: true } };
      context.gateways.push(
        await startGatewayProcess(
          await memberConfig({ url: server.url, id, modelUrl: context.model.url, channels: {}, extra }),
        ),
      );
    }
    context.nc = await connectCluster(server.url);
    context.view = await ClusterLogView.open(context.nc);
    const view = context.view;
    const fired = (): Envelope[] => view.read({ type: 'cron.fired' });
    await logged(view, { type: 'cron.fired' }, (events) => events.length >= 4, 60_000);
    const [lease] = await leasesOf(context.nc, 'schedule');
    const holder = lease!.gateway;
    const other = NODES.find((id) => id !== holder)!;
    assert.equal(
      [...new Set(fired().map((e) => `${e.gateway} ${(e.data as { job: string }).job}`))],
      [`${holder} tick`],
      'one member runs the job',
    );
    spacedByTicks(fired());
    assert.equal(
      await until(
        'the heartbeat to wait on one member only',
        () => {
          const states = heartbeats(view);
          return states[holder] === 'waiting' && states[other] === 'stopped' ? states : undefined;
        },
        20_000,
        () => heartbeats(view),
      ),
      { [holder]: 'waiting', [other]: 'stopped' },
    );

    await context.gateways[NODES.indexOf(holder)]!.kill();
    const killedAt = Date.now();
    const afterKill = await logged(
      view,
      { type: 'cron.fired', since: killedAt },
      (events) => events.filter((e) => e.gateway === other).length >= 3,
      60_000,
    );
    assert.equal(
      [...new Set(afterKill.map((e) => e.gateway))],
      [other],
      'after the kill only the other member runs it',
    );
    spacedByTicks(afterKill);
    assert.ok(
      afterKill[0]!.at - killedAt < 15_000,
      `the job ran again ${afterKill[0]!.at - killedAt} ms after the kill`,
    );
    const takeover = view
      .read({ type: 'cluster.lease.acquired' })
      .filter((e) => e.type === 'cluster.lease.acquired' && e.data.kind === 'schedule' && e.at >= killedAt);
    assert.equal(
      takeover.map((e) => e.data),
      [{ gateway: other, kind: 'schedule', id: 'heartbeat-cron', from: holder }],
    );
    await until(
      'the heartbeat to wait on the other member',
      () => (heartbeats(view)[other] === 'waiting' ? true : undefined),
      20_000,
      () => heartbeats(view),
    );
  },
);

suite.run();

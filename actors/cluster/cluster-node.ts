import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { EventDraft } from '../../bus/index.js';
import { connectCluster } from '../../store/cluster/connection.js';
import { Leases } from '../../store/cluster/leases.js';
import { Members } from '../../store/cluster/members.js';
import { LeftFile } from '../../store/cluster/left-file.js';
import { LeftMarks } from '../../store/cluster/left-marks.js';
import { SendMarks } from '../../store/cluster/send-marks.js';
import type { ChannelEntry, LoadedConfig } from '../../store/config/index.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { DeliveryQueue, type Delivery as QueuedDelivery } from '../../store/cluster/delivery-queue.js';
import type { OrderedConsumer } from '../../store/cluster/in-order.js';
import { requestOf, type Delivery } from '../deliveries.js';
import { Gateway, type GatewayOptions } from '../gateway/gateway.js';
import { watchConnection } from './connection-watch.js';
import { accountLog, memberLog } from '../../store/cluster/stream-names.js';
import { ClusterLogView } from '../../store/log/cluster-view.js';
import { fairShare } from './fair-share.js';
import { SessionPartitions } from './session-partitions.js';
import { partitionOf, SessionWork } from '../../store/cluster/session-work.js';

export interface ClusterSettings {
  /** NATS server URL(s). */
  url: string;
  /** This gateway's id in the cluster. */
  id: string;
  ttlMs: number;
  /** How many partitions each channel account's sessions are spread over (`cluster.session_partitions`; 0: none). */
  partitions?: number;
  token?: string;
  user?: string;
  password?: string;
}

/** How long handing an account over waits for its gateway to drain and stop. */
const HAND_OVER_MS = 30_000;

/** The member's `left` marks NATS has not acknowledged, in its home (`LeftFile`, #40). */
const LEFT_MARKS_FILE = 'cluster-left-marks';

/** The one lease of the cluster's heartbeat and cron: its holder runs them. */
const SCHEDULE_LEASE = 'heartbeat-cron';
/**
 * How long after a dead member's lease or entry should have run out the reconcile that takes its accounts runs: the
 * server expires an entry a little after its time, and one tried too soon waits for the next tick.
 */
const EXPIRY_MARGIN_MS = 150;

/** The config a channel account's gateway runs: that one channel, no heartbeat (the member runs it once). */
function onlyChannel(loaded: LoadedConfig, name: string): LoadedConfig {
  const entry = loaded.config.channel_list[name];
  return { ...loaded, config: { ...loaded.config, channel_list: entry ? { [name]: entry } : {} } };
}

/**
 * A channel only this process can serve: the web-UI chat (`pico`), which lives in the launcher that runs the member,
 * or another channel its host builds. It runs in the member's own gateway and is never a lease.
 */
function isLocal(entry: ChannelEntry, options: GatewayOptions): boolean {
  const kind = entry.type ?? '';
  return kind === 'pico' || options.hostChannels?.[kind] !== undefined;
}

/** The member's own gateway: its local channels only, every shared one left to the accounts' gateways. */
function localChannels(loaded: LoadedConfig, options: GatewayOptions): LoadedConfig {
  const local = Object.entries(loaded.config.channel_list).filter(([, entry]) => isLocal(entry, options));
  return { ...loaded, config: { ...loaded.config, channel_list: Object.fromEntries(local) } };
}

/**
 * The channel accounts a cluster shares: every enabled entry of `channel_list` but local ones, as the config names
 * them.
 */
function accounts(loaded: LoadedConfig, options: GatewayOptions): string[] {
  return Object.entries(loaded.config.channel_list)
    .filter(([, entry]) => entry.enabled && !isLocal(entry, options))
    .map(([name]) => name)
    .sort();
}

export class RelayError extends Error {
  readonly code = 'channel_unknown';
}

/**
 * The account a relayed text goes to: the `channel_list` entry of that name, or the one account of that kind (a turn
 * names its channel by kind, `telegram`).
 */
function accountFor(channel: string, loaded: LoadedConfig, options: GatewayOptions): string {
  const all = accounts(loaded, options);
  if (all.includes(channel)) return channel;
  const ofKind = all.filter((name) => (loaded.config.channel_list[name]?.type ?? name) === channel);
  if (ofKind.length === 1) return ofKind[0]!;
  const why = ofKind.length === 0 ? 'no channel account of the cluster is' : `${ofKind.length} channel accounts are`;
  throw new RelayError(`${why} "${channel}" (accounts: ${all.join(', ') || 'none'}); name the account`);
}

/** A channel account this member runs: its gateway, and the consumer of replies relayed to it. */
interface Cell {
  gateway: Gateway;
  deliveries: OrderedConsumer;
}

/** The config as the file says now: the member's own gateway reloads it and hands it on (`ClusterNode.start`). */
interface CurrentConfig {
  loaded: LoadedConfig;
}

/**
 * `tern gateway --cluster` (#27): one member of a cluster of gateways sharing NATS JetStream.
 * - The member's own gateway runs on its own stream (`memberLog`): `/health`, membership and lease events, local
 *   channels (the launcher's web chat), and the heartbeat and cron while it holds the cluster's one schedule lease.
 * - Each channel account (a `channel_list` entry, one bot token) is a lease. The member holding it runs that account's
 *   gateway — the channel's poller, its dispatcher, its sessions and their turns, its outbox — on the account's own
 *   stream (`accountLog`). So an account is polled by exactly one gateway, its sessions run in order in one place,
 *   and its replies go out from the gateway that holds its connection.
 * - Members share the accounts fairly (`fairShare`): one holding more than its share hands one over (drains it,
 *   closes its stream, releases the lease), one holding fewer takes a free one.
 * - A member that dies stops renewing: its leases expire after the TTL and other members take its accounts. Taking
 *   an account opens its stream as the one writer (a late write of the old holder is refused by the stream's
 *   sequence fence) and starts its gateway, whose start folds the stream's tail exactly as after a crash (#21):
 *   accepted messages are routed and run, a turn cut before it acted runs again, one cut after gets the restart
 *   notice, replies not all sent are delivered skipping sent parts, and the platform's redelivered updates are
 *   dropped as seen.
 * - Text that answers no inbound message (the heartbeat's answer, a cron job's, the `message` tool's) for a chat of an
 *   account this gateway does not run is relayed (`DeliveryQueue`) to whichever member holds the account, which
 *   requests it in the account's log and sends it through that account's outbox.
 * - The accounts follow the config file: the member's own gateway re-reads it, and an account added is taken by one
 *   member, one removed is stopped and released.
 */
export class ClusterNode {
  private readonly cells = new Map<string, Promise<Cell | undefined>>();
  private readonly connection: { stop(): void };
  private readonly timer: NodeJS.Timeout;
  private ticking: Promise<void> = Promise.resolve();
  /** The reconcile due right after a lease or a member's entry runs out (`reconcileAt`), and when. */
  private retry: { timer: NodeJS.Timeout; at: number } | undefined;
  private stopped = false;
  /** The sessions this member serves when accounts spread them (`cluster.session_partitions`, #40). */
  private readonly partitions: SessionPartitions | undefined;

  private constructor(
    readonly settings: ClusterSettings,
    private readonly nc: NatsConnection,
    /** The member's own gateway (`/health`, heartbeat, cron). */
    readonly gateway: Gateway,
    private readonly members: Members,
    private readonly leases: Leases,
    private readonly queue: DeliveryQueue,
    private readonly current: CurrentConfig,
    private readonly options: GatewayOptions,
    /** The `left` marks this member wrote that the server has not acknowledged yet (#40). */
    private readonly lefts: LeftMarks,
  ) {
    this.connection = watchConnection(nc, options.logs.gateway);
    if (settings.partitions)
      this.partitions = new SessionPartitions({
        nc,
        gateway: settings.id,
        leases,
        partitions: settings.partitions,
        options,
        loaded: () => current.loaded,
        relay: (delivery) => relay(queue, current, options, delivery),
      });
    this.timer = setInterval(() => this.tick(), Math.max(100, Math.floor(settings.ttlMs / 5)));
    this.tick();
  }

  static async start(options: GatewayOptions, settings: ClusterSettings): Promise<ClusterNode> {
    const nc = await connectCluster(settings.url, {
      name: settings.id,
      ...(settings.token ? { token: settings.token } : {}),
      ...(settings.user ? { user: settings.user } : {}),
      ...(settings.password ? { pass: settings.password } : {}),
    });
    // First thing: the marks a previous run was killed with are written again before anything asks for them.
    let lefts: LeftMarks | undefined;
    try {
      lefts = LeftMarks.start(nc, settings.id, LeftFile.open(join(options.loaded.home, LEFT_MARKS_FILE)));
      const queue = await DeliveryQueue.open(nc);
      const current: CurrentConfig = { loaded: options.loaded };
      const log = await JetStreamEventStore.open(nc, { ...memberLog(settings.id), gateway: settings.id });
      const gateway = await Gateway.start({
        ...options,
        loaded: localChannels(options.loaded, options),
        log,
        // The member's gateway watches the config file; the accounts the member shares follow what it reads.
        adjustConfig: (loaded) => {
          current.loaded = options.adjustConfig?.(loaded) ?? loaded;
          return localChannels(current.loaded, options);
        },
        relay: (delivery) => relay(queue, current, options, delivery),
        // The heartbeat and cron run while this member holds the schedule lease (`reconcile`).
        scheduled: false,
      });
      const publish = (draft: EventDraft): void => void gateway.core.bus.publish(draft);
      const members = await Members.join(nc, { gateway: settings.id, ttlMs: settings.ttlMs, publish });
      const leases = await Leases.open(nc, { gateway: settings.id, ttlMs: settings.ttlMs, publish });
      return new ClusterNode(settings, nc, gateway, members, leases, queue, current, options, lefts);
    } catch (error) {
      lefts?.stop();
      await nc.close();
      throw error;
    }
  }

  /**
   * Every gateway's events in one log, as the dashboard reads them, on this member's connection; the caller closes it.
   */
  openClusterLog(): Promise<ClusterLogView> {
    return ClusterLogView.open(this.nc);
  }

  /** The channel accounts this member runs now. */
  held(): string[] {
    return [...this.cells.keys()].sort();
  }

  /**
   * Hands every account over (drained, streams closed, leases released), leaves the cluster, stops its own gateway.
   * The connection to NATS is closed whatever failed before, so a stopped member never outlives its stop.
   */
  async stop(signal?: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.retry?.timer);
    try {
      await this.ticking;
      this.gateway.setScheduled(false, 'the member is stopping');
      // Sessions first: their replies reach the accounts' holders while those still run.
      await this.partitions?.stop();
      await Promise.all([...this.cells.keys()].map((name) => this.handOver(name, signal)));
      await this.leases.close();
      await this.members.leave();
      await this.gateway.stop(signal);
    } finally {
      this.leases.abandon();
      this.members.stop();
      this.connection.stop();
      this.lefts.stop();
      await this.nc.drain().catch(() => this.nc.close());
    }
  }

  private tick(): void {
    this.ticking = this.ticking
      .then(() => this.reconcile())
      .catch((error: unknown) => {
        this.options.logs.gateway.warn('cluster: could not reconcile channel accounts', {
          reason: (error as Error).message,
        });
      });
  }

  /** Takes, keeps or hands over channel accounts so that each is run once and members share them fairly. */
  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    await this.schedule();
    const all = accounts(this.current.loaded, this.options);
    // A lease lost (this member stalled past the TTL): its gateway stops at once, another member has the account. An
    // account gone from the config (or disabled) stops too and its lease is released: nobody runs it any more.
    for (const name of this.held()) {
      if (!all.includes(name)) await this.handOver(name, 'removed from channel_list');
      else if (!this.leases.holds('channel', name)) await this.handOver(name, 'lease lost');
    }
    const listed = await this.members.list();
    const live = listed.map((m) => m.gateway);
    // A member that missed a renewal may be dead: when its entry runs out the shares change.
    const silent = listed.filter(
      (m) => m.gateway !== this.settings.id && Date.now() - m.seenAt > this.settings.ttlMs / 2,
    );
    for (const member of silent) this.reconcileAt(member.seenAt + this.settings.ttlMs);
    await this.partitions?.reconcile(all, live);
    const share = fairShare(all.length, live.includes(this.settings.id) ? live.length : live.length + 1);
    // An account whose stream another writer took while this member held its lease (#40): once the server confirms
    // the lease is still this member's, it runs again on the stream as it is now, which has the other writer's events.
    for (const name of all) {
      if (this.cells.has(name) || !this.leases.holds('channel', name)) continue;
      if (await this.leases.confirm('channel', name)) {
        this.run(name);
        return;
      }
    }
    const mine = this.held();
    // One account is handed over only to a member that runs none: member lists seen under load come and go, and
    // handing over on every change of the share would move accounts back and forth.
    if (mine.length > share && (await this.idleMember(live))) return this.handOver(mine.at(-1)!, 'rebalance');
    if (mine.length >= share) return;
    for (const name of all) {
      if (this.cells.has(name)) continue;
      if (await this.leases.acquire('channel', name)) {
        this.run(name);
        return;
      }
      this.reconcileAt(this.leases.expiresAt('channel', name));
    }
  }

  /**
   * One reconcile more right after `at`, when a lease or a member's entry runs out unless renewed: a dead member's
   * accounts are taken as soon as the server lets them go, not up to a tick (`ttlMs / 5`) later (#40,
   * `cluster.failover_ms`). A holder that renews in time only costs one reconcile that changes nothing. A time
   * already past is left to the ticks, so a server whose clock runs behind never makes this a busy loop.
   */
  private reconcileAt(at: number | undefined): void {
    if (at === undefined || this.stopped) return;
    const due = at + EXPIRY_MARGIN_MS;
    if (due <= Date.now() || (this.retry && this.retry.at <= due)) return;
    if (this.retry) clearTimeout(this.retry.timer);
    const timer = setTimeout(() => {
      this.retry = undefined;
      this.tick();
    }, due - Date.now());
    timer.unref();
    this.retry = { timer, at: due };
  }

  /**
   * The heartbeat and cron run on the member holding the schedule lease: once per cluster. A member that takes it
   * (the first to try, or another once its holder died and the lease expired) starts them; one that lost it (it
   * stalled past the TTL) stops them.
   */
  private async schedule(): Promise<void> {
    if (this.leases.holds('schedule', SCHEDULE_LEASE)) return;
    // Stopped before asking the server, which may be out of reach: a lease not held is never acted on.
    this.gateway.setScheduled(false, "this member does not hold the cluster's schedule lease");
    if (await this.leases.acquire('schedule', SCHEDULE_LEASE))
      this.gateway.setScheduled(true, "this member holds the cluster's schedule lease");
  }

  /** Whether a live member other than this one runs no channel account. */
  private async idleMember(live: string[]): Promise<boolean> {
    const busy = new Set((await this.leases.list()).filter((l) => l.kind === 'channel').map((l) => l.gateway));
    return live.some((gateway) => gateway !== this.settings.id && !busy.has(gateway));
  }

  /**
   * Starts the gateway of an account this member now holds, on the account's stream, and takes the replies other
   * gateways relayed to the account (`DeliveryQueue`).
   */
  private run(name: string): void {
    // The host hears of the member's own runtime only (the launcher follows its bus); an account's is the cluster
    // log's.
    const { onRuntime: _member, ...options } = this.options;
    const { settings, current, queue } = this;
    const spread = settings.partitions ?? 0;
    const onFenced = (error: Error): void => this.fenced(name, cell, error);
    const cell: Promise<Cell | undefined> = (async (): Promise<Cell> => {
      const log = await JetStreamEventStore.open(this.nc, { ...accountLog(name), gateway: settings.id, onFenced });
      let gateway: Gateway | undefined;
      try {
        // Which parts the previous holder had on their way: one it never sent is sent, as after a restart (#40).
        const journal = await SendMarks.open(
          this.nc,
          name,
          log,
          { id: settings.id, marks: this.lefts },
          () => this.leases.valid('channel', name),
          (message, fields) => options.logs.gateway.warn(`cluster: ${message}`, fields),
        );
        // Its sessions are served where their partitions' leases are (#40): this gateway polls, forwards and sends.
        const work = spread > 0 ? await SessionWork.open(this.nc, name) : undefined;
        gateway = await Gateway.start({
          ...options,
          loaded: onlyChannel(current.loaded, name),
          adjustConfig: (loaded) => onlyChannel(options.adjustConfig?.(loaded) ?? loaded, name),
          log,
          journal,
          health: 'none',
          scheduled: false,
          relay: (delivery) => relay(queue, current, options, delivery),
          ...(work
            ? { forward: (session, message) => work.publish(partitionOf(session, spread), session, message) }
            : {}),
        });
        const started = gateway;
        const deliveries = await queue.consume(
          name,
          (delivery) => request(started, delivery),
          (reason) => {
            options.logs.gateway.warn('cluster: a relayed reply is not valid and is dropped', {
              channel: name,
              reason,
            });
          },
        );
        return { gateway, deliveries };
      } catch (error) {
        if (gateway) await gateway.stop('failed');
        else log.close();
        throw error;
      }
    })().catch(async (error: unknown) => {
      options.logs.gateway.error('cluster: channel account not started', {
        channel: name,
        reason: (error as Error).message,
      });
      this.cells.delete(name);
      await this.leases.release('channel', name);
      return undefined;
    });
    this.cells.set(name, cell);
  }

  /**
   * Another writer appended to an account's stream while this member ran it: another member took the account over
   * (this one stalled past its lease), or this member took it while the previous holder still wrote. Either is
   * expected in a cluster. Its gateway stops (its writes are no longer stored) without releasing the lease; the next
   * `reconcile` runs the account again if the lease is still this member's.
   */
  private fenced(name: string, cell: Promise<Cell | undefined>, error: Error): void {
    const { logs } = this.options;
    logs.gateway.warn("cluster: another writer appended to the channel account's stream; its gateway here stops", {
      channel: name,
      reason: error.message,
    });
    this.ticking = this.ticking
      .then(async () => {
        if (this.cells.get(name) === cell) await this.handOver(name, 'stream taken over', { release: false });
      })
      .catch((failure: unknown) => {
        logs.gateway.warn('cluster: could not stop a channel account', {
          channel: name,
          reason: (failure as Error).message,
        });
      });
  }

  private async handOver(name: string, reason?: string, { release = true }: { release?: boolean } = {}): Promise<void> {
    const cell = this.cells.get(name);
    if (!cell) return;
    this.cells.delete(name);
    const running = await cell;
    try {
      // Relayed replies stop first: what is not in the account's log yet stays queued for the next holder.
      await running?.deliveries.stop();
      // A stop that hangs (a send the platform never answers) must not hold up the member's other accounts.
      const late = new Promise((resolve) => setTimeout(resolve, HAND_OVER_MS).unref());
      await Promise.race([running?.gateway.stop(reason), late]);
    } catch (error) {
      const why = (error as Error).message;
      this.options.logs.gateway.error('cluster: channel account did not stop cleanly', { channel: name, reason: why });
    }
    if (release) await this.leases.release('channel', name);
  }
}

/** Queues a text for the member running its account (this one or another); resolves with that account. */
async function relay(
  queue: DeliveryQueue,
  current: CurrentConfig,
  options: GatewayOptions,
  delivery: Delivery,
): Promise<string> {
  const account = accountFor(delivery.reply.channel, current.loaded, options);
  await queue.enqueue(account, requestOf({ ...delivery, reply: { ...delivery.reply, channel: account } }));
  return account;
}

/**
 * A relayed reply becomes the account gateway's outbox work, as its own replies are: requested in its log (once: a
 * delivery handed again after a holder died may be there already), sent under its key, recovered after a crash.
 */
async function request(gateway: Gateway, delivery: QueuedDelivery): Promise<void> {
  const { bus } = gateway.core;
  const requested = requestedKeys(gateway);
  if (requested.has(delivery.key)) return;
  requested.add(delivery.key);
  bus.publish({ type: 'reply.requested', data: delivery });
  // Handed again later if the log did not take it, as before this gateway knew the key.
  await bus.durable().catch((error: unknown) => {
    requested.delete(delivery.key);
    throw error;
  });
}

/** The keys of the replies an account's gateway has requested, read from its log once, then kept up to date. */
const requestedByGateway = new WeakMap<Gateway, Set<string>>();

function requestedKeys(gateway: Gateway): Set<string> {
  let keys = requestedByGateway.get(gateway);
  if (!keys) {
    keys = new Set();
    for (const event of gateway.core.log.iterate({ type: 'reply.requested' }))
      if (event.type === 'reply.requested') keys.add(event.data.key);
    requestedByGateway.set(gateway, keys);
  }
  return keys;
}

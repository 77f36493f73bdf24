import type { NatsConnection } from '@nats-io/transport-node';
import type { Leases } from '../../store/cluster/leases.js';
import type { OrderedConsumer } from '../../store/cluster/in-order.js';
import { SessionWork } from '../../store/cluster/session-work.js';
import { sessionsLog } from '../../store/cluster/stream-names.js';
import type { LoadedConfig } from '../../store/config/index.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { Gateway, type GatewayOptions } from '../gateway/gateway.js';
import { fairShare } from './fair-share.js';

/** How long handing a partition over waits for its gateway to drain and stop. */
const HAND_OVER_MS = 30_000;

/** A partition this member serves: the gateway running its sessions, and the consumer feeding it. */
interface Served {
  gateway: Gateway;
  work: OrderedConsumer;
}

export interface PartitionsDeps {
  nc: NatsConnection;
  gateway: string;
  leases: Leases;
  /** How many partitions each account's sessions are spread over. */
  partitions: number;
  /** The gateway options a partition's gateway starts from (its log, channels and schedule are set here). */
  options: GatewayOptions;
  /** The config as the file says now. */
  loaded: () => LoadedConfig;
  /** Hands a reply to the member running its channel account (`DeliveryQueue`). */
  relay: NonNullable<GatewayOptions['relay']>;
}

/** The config a partition's gateway runs: no channel (its account's holder polls and sends), no heartbeat. */
function noChannels(loaded: LoadedConfig): LoadedConfig {
  return { ...loaded, config: { ...loaded.config, channel_list: {} } };
}

/** The lease id of one partition of an account's sessions. */
const leaseId = (account: string, partition: number): string => `${account}/${partition}`;

/**
 * The sessions of a cluster's channel accounts, spread over the members (#40, `cluster.session_partitions` = N): each
 * account's sessions hash into N partitions, each a lease (kind `session`, id `<account>/<n>`). The member holding a
 * partition runs a gateway with no channel on the partition's own stream (`sessionsLog`): it takes the partition's
 * messages from the account's work stream (`SessionWork`) in order, runs their turns, and hands every reply to the
 * account's holder (the gateway's `relay`), which sends it. A session is served by one member at a time (its
 * partition's lease, and the stream's one-writer fence), and stays with it until the members change: members share
 * each account's partitions fairly, one holding more than its share hands one over (drained, stream closed, lease
 * released) while another holds fewer. Taking a partition over folds its stream as a restart does.
 */
export class SessionPartitions {
  private readonly served = new Map<string, Promise<Served | undefined>>();

  constructor(private readonly deps: PartitionsDeps) {}

  /** The partitions this member serves, by lease id (`<account>/<n>`). */
  held(): string[] {
    return [...this.served.keys()].sort();
  }

  /**
   * Stops partitions whose lease was lost or whose account left the config, hands one over when this member serves
   * more than its share of an account's while another member serves fewer, and takes a free one when it serves fewer.
   */
  async reconcile(accounts: string[], live: string[]): Promise<void> {
    const { leases, partitions } = this.deps;
    for (const id of this.held()) {
      const account = id.slice(0, id.lastIndexOf('/'));
      // A lease lost (this member stalled past the TTL) is another member's now; releasing it is a no-op.
      if (!accounts.includes(account) || !leases.holds('session', id)) await this.handOver(id);
    }
    const members = live.includes(this.deps.gateway) ? live : [...live, this.deps.gateway];
    const share = fairShare(partitions, members.length);
    const records = (await leases.list()).filter((l) => l.kind === 'session');
    for (const account of accounts) {
      const ids = Array.from({ length: partitions }, (_, n) => leaseId(account, n));
      const mine = ids.filter((id) => this.served.has(id));
      const count = (member: string): number =>
        records.filter((l) => l.gateway === member && ids.includes(l.id)).length;
      if (mine.length > share && members.some((m) => m !== this.deps.gateway && count(m) < share)) {
        await this.handOver(mine.at(-1)!);
        continue;
      }
      const taken = new Set(records.filter((l) => ids.includes(l.id)).map((l) => l.id));
      const free = ids.filter((id) => !this.served.has(id) && !taken.has(id));
      for (const id of free.slice(0, Math.max(0, share - mine.length))) {
        if (await leases.acquire('session', id)) this.serve(account, Number(id.slice(account.length + 1)));
      }
    }
  }

  /** Hands every partition over: drained, streams closed, leases released. */
  async stop(): Promise<void> {
    await Promise.all(this.held().map((id) => this.handOver(id)));
  }

  private serve(account: string, partition: number): void {
    const { nc, options, gateway: member } = this.deps;
    const id = leaseId(account, partition);
    const { onRuntime: _member, ...rest } = options;
    const served = (async (): Promise<Served> => {
      const onFenced = (): void => void this.fenced(id, served);
      const log = await JetStreamEventStore.open(nc, { ...sessionsLog(account, partition), gateway: member, onFenced });
      let gateway: Gateway | undefined;
      try {
        gateway = await Gateway.start({
          ...rest,
          loaded: noChannels(this.deps.loaded()),
          adjustConfig: (loaded) => noChannels(options.adjustConfig?.(loaded) ?? loaded),
          log,
          health: 'none',
          scheduled: false,
          relay: this.deps.relay,
          relayReplies: true,
        });
        const running = gateway;
        const work = await (await SessionWork.open(nc, account)).consume(
          partition,
          (message) => running.accept(message),
          (reason) =>
            options.logs.gateway.warn('cluster: a queued inbound message is not valid and is dropped', {
              channel: account,
              reason,
            }),
        );
        return { gateway, work };
      } catch (error) {
        if (gateway) await gateway.stop('failed');
        else log.close();
        throw error;
      }
    })().catch(async (error: unknown) => {
      options.logs.gateway.error('cluster: sessions partition not started', {
        partition: id,
        reason: (error as Error).message,
      });
      this.served.delete(id);
      await this.deps.leases.release('session', id);
      return undefined;
    });
    this.served.set(id, served);
  }

  /** Another writer took the partition's stream: its gateway here stops, the lease kept until the next reconcile. */
  private async fenced(id: string, served: Promise<Served | undefined>): Promise<void> {
    this.deps.options.logs.gateway.warn("cluster: another writer appended to the sessions partition's stream", {
      partition: id,
    });
    if (this.served.get(id) === served) await this.handOver(id, { release: false });
  }

  private async handOver(id: string, { release = true }: { release?: boolean } = {}): Promise<void> {
    const served = this.served.get(id);
    if (!served) return;
    this.served.delete(id);
    const running = await served;
    try {
      // Inbound stops first: what is not in the partition's log yet stays queued for the next holder.
      await running?.work.stop();
      const late = new Promise((resolve) => setTimeout(resolve, HAND_OVER_MS).unref());
      await Promise.race([running?.gateway.stop('partition handed over'), late]);
    } catch (error) {
      const reason = (error as Error).message;
      this.deps.options.logs.gateway.error('cluster: sessions partition did not stop cleanly', {
        partition: id,
        reason,
      });
    }
    if (release) await this.deps.leases.release('session', id);
  }
}

import { filter, merge, Observable, Subject, type Subscription } from 'rxjs';
import {
  AckPolicy, JetStreamApiError, jetstream, jetstreamManager, RetentionPolicy, StorageType,
  type ConsumerMessages, type JetStreamClient,
} from '@nats-io/jetstream';
import { headers, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import {
  InProcessBus, memorySequencer, typeMatcher, WORK_GROUPS, workGroupOf,
  type Bus, type BusOptions, type Correlation, type Envelope, type EventDraft, type EventType, type Sequencer,
  type WorkGroup, type WorkType,
} from '../../bus/index.js';
import { ClusterError } from './errors.js';
import { idToken, typeToken } from './subjects.js';

export interface NatsBusOptions extends BusOptions {
  /** This process's gateway id: the origin every event it publishes carries on the wire. */
  gateway: string;
  /** The work-queue stream (default `TERN_WORK`). */
  workStream?: string;
  /** Work items are stored under `<workRoot>.<group>.<session>` (default `tern.work`). */
  workRoot?: string;
  /** Events are broadcast to other processes on `<busRoot>.<gateway>.<type>` (default `tern.bus`). */
  busRoot?: string;
  /** How long a work item handed to a process may stay unacknowledged before another process gets it. */
  ackWaitMs?: number;
  /** How long a work publish waits for the stream's ack before it is sent again (same id: stored once). */
  ackTimeoutMs?: number;
}

/** The header naming the gateway an event came from. */
export const GATEWAY_HEADER = 'Tern-Gateway';

/**
 * The bus of one gateway in a cluster (#27), over NATS: the same `Bus` contract as `InProcessBus`, which it wraps
 * for what stays in the process.
 * - `publish` validates, redacts, stamps (through the sequencer: the cluster's JetStream log) and delivers locally at
 *   once, as `InProcessBus` does; then broadcasts the envelope on core NATS so other gateways observe it.
 * - `events$`, `on`, `matching`, `select` deliver this process's events and, as they arrive, every other gateway's
 *   (`originOf` tells whose). A consumer that must act only on its own gateway's control events filters by origin.
 * - Work (`bus/work.ts` groups) leaves the process: each item is published to a work-queue stream with
 *   `Nats-Msg-Id` = `<group>:<seq>` (a resend is stored once), and `work(group)` consumes the group's durable
 *   consumer, shared by every gateway, so each item goes to one consumer in the cluster. An item stays in the stream
 *   until the consumer it was handed to has taken it (the observer's `next` returned); a process that dies before
 *   that leaves it to be handed to another after `ackWaitMs`.
 */
export class NatsBus implements Bus {
  private readonly local: InProcessBus;
  private readonly js: JetStreamClient;
  private readonly remote = new Subject<Envelope>();
  private readonly remoteEnvelopes = new WeakMap<Envelope, string>();
  private readonly forwarding: Subscription[] = [];
  private readonly broadcast: NatsSubscription;
  /** Each work group's consumer in this process, by the function that stops it. */
  private readonly consuming = new Map<WorkGroup, () => void>();
  /** Work publishes not yet acknowledged by the stream. */
  private readonly pending = new Set<Promise<void>>();
  private failure: Error | undefined;
  readonly events$: Observable<Envelope>;
  private readonly workStream: string;
  private readonly workRoot: string;
  private readonly busRoot: string;

  private constructor(private readonly nc: NatsConnection, sequencer: Sequencer, private readonly options: NatsBusOptions) {
    this.local = new InProcessBus(sequencer, options.redact ? { redact: options.redact } : {});
    this.js = jetstream(nc);
    this.workStream = options.workStream ?? 'TERN_WORK';
    this.workRoot = options.workRoot ?? 'tern.work';
    this.busRoot = options.busRoot ?? 'tern.bus';
    this.events$ = merge(this.local.events$, this.remote.asObservable());
    // What the in-process bus would hand to a local consumer goes to the cluster's work queue instead.
    for (const group of Object.keys(WORK_GROUPS) as WorkGroup[]) {
      this.forwarding.push(this.local.work(group).subscribe((envelope) => this.enqueue(group, envelope, `${group}:${envelope.seq}`)));
    }
    this.forwarding.push(this.local.events$.subscribe((envelope) => this.share(envelope)));
    this.broadcast = nc.subscribe(`${this.busRoot}.*.>`, {
      callback: (error, message) => {
        if (error) return;
        const origin = message.headers?.get(GATEWAY_HEADER) ?? '';
        if (origin === this.options.gateway) return;
        const envelope = message.json<Envelope>();
        this.remoteEnvelopes.set(envelope, origin);
        this.remote.next(envelope);
      },
    });
  }

  /** Creates the work-queue stream and a durable consumer per work group if absent. */
  static async open(nc: NatsConnection, options: NatsBusOptions, sequencer: Sequencer = memorySequencer()): Promise<NatsBus> {
    const jsm = await jetstreamManager(nc);
    const stream = options.workStream ?? 'TERN_WORK';
    const root = options.workRoot ?? 'tern.work';
    try {
      await jsm.streams.info(stream);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.status === 404)) throw error;
      await jsm.streams.add({
        name: stream,
        subjects: [`${root}.>`],
        storage: StorageType.File,
        retention: RetentionPolicy.Workqueue,
        duplicate_window: 120_000_000_000,
      });
    }
    for (const group of Object.keys(WORK_GROUPS) as WorkGroup[]) {
      await jsm.consumers.add(stream, {
        durable_name: consumerName(group),
        filter_subject: `${root}.${group}.>`,
        ack_policy: AckPolicy.Explicit,
        ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
        max_deliver: -1,
      });
    }
    await nc.flush();
    return new NatsBus(nc, sequencer, options);
  }

  publish<T extends EventType>(draft: EventDraft<T>): Envelope<T> {
    if (this.failure) throw new ClusterError('cluster_closed', `the cluster bus failed: ${this.failure.message}`);
    return this.local.publish(draft);
  }

  on<T extends EventType>(...types: T[]): Observable<Envelope<T>> {
    const wanted = new Set<string>(types);
    return this.events$.pipe(filter((e): e is Envelope<T> => wanted.has(e.type)));
  }

  matching(pattern: string): Observable<Envelope> {
    const matches = typeMatcher(pattern);
    return this.events$.pipe(filter((e) => matches(e.type)));
  }

  select(keys: Correlation): Observable<Envelope> {
    const entries = Object.entries(keys).filter(([, v]) => v !== undefined) as [keyof Correlation, string][];
    return this.events$.pipe(filter((e) => entries.every(([k, v]) => e[k] === v)));
  }

  /** The gateway an event came from: this one's id for its own events. */
  originOf(envelope: Envelope): string {
    return this.remoteEnvelopes.get(envelope) ?? this.options.gateway;
  }

  work<G extends WorkGroup>(group: G): Observable<Envelope<WorkType<G>>> {
    return new Observable<Envelope<WorkType<G>>>((subscriber) => {
      if (this.consuming.has(group)) {
        subscriber.error(new Error(`the work group ${group} already has a consumer in this process`));
        return undefined;
      }
      let messages: ConsumerMessages | undefined;
      let closed = false;
      const stop = (): void => {
        closed = true;
        if (this.consuming.get(group) === stop) this.consuming.delete(group);
        void messages?.close();
      };
      this.consuming.set(group, stop);
      void (async () => {
        try {
          const consumer = await this.js.consumers.get(this.workStream, consumerName(group));
          if (closed) return;
          messages = await consumer.consume({ max_messages: 64 });
          if (closed) return void messages.close();
          for await (const message of messages) {
            // Taken by this process only once its consumer has it; what arrives after the end goes back at once.
            if (closed) {
              message.nak();
              continue;
            }
            subscriber.next(message.json<Envelope<WorkType<G>>>());
            message.ack();
          }
        } catch (error) {
          if (!closed) subscriber.error(error);
        }
      })();
      return stop;
    });
  }

  requeue(envelopes: Envelope[]): void {
    for (const envelope of envelopes) {
      const group = workGroupOf(envelope);
      // Two gateways taking up the same dead gateway's work requeue it once.
      if (group) this.enqueue(group, envelope, `${group}:${envelope.seq}:requeued`);
    }
  }

  /** Resolves once everything published so far is in the log and every work item is in its stream. */
  async durable(): Promise<void> {
    await this.local.durable();
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    if (this.failure) throw new ClusterError('cluster_closed', `the cluster bus failed: ${this.failure.message}`);
  }

  complete(): void {
    for (const subscription of this.forwarding.splice(0)) subscription.unsubscribe();
    this.broadcast.unsubscribe();
    for (const stop of [...this.consuming.values()]) stop();
    this.local.complete();
    this.remote.complete();
  }

  private share(envelope: Envelope): void {
    const hdrs = headers();
    hdrs.set(GATEWAY_HEADER, this.options.gateway);
    this.nc.publish(`${this.busRoot}.${idToken(this.options.gateway)}.${typeToken(envelope.type)}`, JSON.stringify(envelope), { headers: hdrs });
  }

  private enqueue(group: WorkGroup, envelope: Envelope, id: string): void {
    const subject = `${this.workRoot}.${group}.${idToken(envelope.session)}`;
    const payload = JSON.stringify(envelope);
    const sent = (async () => {
      const deadline = Date.now() + 60_000;
      for (let attempt = 0; ; attempt++) {
        try {
          await this.js.publish(subject, payload, { msgID: id, timeout: this.options.ackTimeoutMs ?? 5_000 });
          return;
        } catch (error) {
          if (Date.now() > deadline || this.nc.isClosed()) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
        }
      }
    })().catch((error: Error) => {
      this.failure ??= error;
    });
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }
}

function consumerName(group: WorkGroup): string {
  return `work-${group}`;
}

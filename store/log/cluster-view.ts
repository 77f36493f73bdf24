import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Subject, type Observable } from 'rxjs';
import type { Envelope, ValidDraft } from '../../bus/index.js';
import { listEventStreams } from '../cluster/streams-info.js';
import { STREAM_PREFIXES } from '../cluster/stream-names.js';
import { LogError } from './errors.js';
import type { EventStore, LogQuery } from './event-store.js';
import { FOLLOW_EXPIRES_MS } from './jetstream-store.js';
import { EventReplica } from './replica.js';

export interface ClusterViewOptions {
  /** How often streams that appeared since (a channel account first taken, a member joining) are looked for. */
  discoverMs?: number;
}

/** Events in the order a view takes a backlog in: by time, then stream, then place in the stream. */
const byTime = (a: Envelope, b: Envelope): number =>
  a.at - b.at || (a.stream ?? '').localeCompare(b.stream ?? '') || a.seq - b.seq;

/** One event stream the view follows: its backlog is held until the view takes it, then events pass on as they come. */
class Followed {
  readonly backlog: Envelope[] = [];
  live = false;
  readonly loaded: Promise<void>;
  private markLoaded!: () => void;

  constructor(
    readonly name: string,
    private readonly messages: ConsumerMessages,
    /** The stream's last seq when the view opened it: once that has arrived, the backlog is complete. */
    until: number,
    private readonly onLive: (event: Envelope) => void,
  ) {
    this.loaded = new Promise((resolve) => (this.markLoaded = resolve));
    if (until === 0) this.markLoaded();
    void this.read(until);
  }

  close(): void {
    void this.messages.close();
    this.markLoaded();
  }

  private async read(until: number): Promise<void> {
    try {
      for await (const message of this.messages) {
        const event: Envelope = { ...message.json<Envelope>(), stream: this.name };
        if (this.live) this.onLive(event);
        else this.backlog.push(event);
        if (message.seq >= until) this.markLoaded();
      }
    } catch {
      // A stream deleted under the view: what it read stays, nothing more comes.
    }
    this.markLoaded();
  }
}

/**
 * Every gateway's events in one log (#27): a read-only `EventStore` over all the event streams of a cluster (each
 * member's own, each channel account's), for the cluster-wide views (`tern log`, `tern inspect`, `tern replay`, the
 * dashboard). Each stream is followed by an ordered consumer; the backlogs are merged by time when the view opens (and
 * when a new stream appears), later events are taken as they arrive. Every event keeps its data and `gateway` and
 * names its `stream`; its `seq` is its place in this view, numbered from 1 (a stream's own seq is per stream, so the
 * view numbers them anew). The backlog is numbered in time order, so a view opened later numbers the same events
 * alike (`tern log --after N` reads on where an earlier run ended) unless the members' clocks disagree.
 *
 * Why not a JetStream stream that sources the others: the event streams are written with `Nats-Expected-Last-Sequence`
 * (one writer per stream), and nats-server 2.9 copies that header into a sourcing stream, which then refuses the
 * events ("last sequence mismatch").
 */
export class ClusterLogView implements EventStore {
  readonly readOnly = true;
  private readonly replica = new EventReplica();
  private readonly followed = new Map<string, Followed>();
  private readonly arrivals = new Subject<Envelope>();
  /** Every event as the view takes it, in view `seq` order. */
  readonly events$: Observable<Envelope> = this.arrivals.asObservable();
  private readonly timer: NodeJS.Timeout;
  private discovering: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly nc: NatsConnection,
    discoverMs: number,
  ) {
    this.timer = setInterval(() => {
      this.discovering = this.discovering.then(() => this.discover()).catch(() => undefined);
    }, discoverMs);
  }

  /** Opens the view with every stream's events up to now taken in; the connection stays the caller's. */
  static async open(nc: NatsConnection, options: ClusterViewOptions = {}): Promise<ClusterLogView> {
    const view = new ClusterLogView(nc, options.discoverMs ?? 1_000);
    try {
      await view.discover();
    } catch (error) {
      view.close();
      throw error;
    }
    return view;
  }

  get lastSeq(): number {
    return this.replica.lastSeq;
  }

  stamp(_draft: ValidDraft): Envelope {
    throw new LogError('log_write_failed', 'the cluster log view is read-only: each gateway writes its own stream');
  }

  append(_draft: ValidDraft): Envelope {
    throw new LogError('log_write_failed', 'the cluster log view is read-only: each gateway writes its own stream');
  }

  async committed(): Promise<void> {}

  async flushed(): Promise<void> {}

  get(seq: number): Envelope | undefined {
    return this.replica.get(seq);
  }

  read(query: LogQuery = {}): Envelope[] {
    return [...this.replica.iterate(query)];
  }

  iterate(query: LogQuery = {}): Iterable<Envelope> {
    return this.replica.iterate(query);
  }

  lastCommittedSeq(): number {
    return this.replica.lastSeq;
  }

  sessionIds(prefix = 'sk_v1_'): string[] {
    return this.replica.sessionIds(prefix);
  }

  /** The view follows the streams by itself. */
  refresh(): void {}

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    for (const stream of this.followed.values()) stream.close();
    this.arrivals.complete();
  }

  /** Follows every event stream not followed yet and takes in their backlogs, merged by time. */
  private async discover(): Promise<void> {
    if (this.closed) return;
    const rows = await listEventStreams(this.nc, STREAM_PREFIXES);
    const fresh = rows.filter((row) => !this.followed.has(row.stream));
    if (fresh.length === 0) return;
    const js = jetstream(this.nc);
    const opened = await Promise.all(
      fresh.map(async (row) => {
        const consumer = await js.consumers.get(row.stream, { deliver_policy: DeliverPolicy.All });
        return new Followed(row.stream, await consumer.consume({ expires: FOLLOW_EXPIRES_MS }), row.lastSeq, (event) =>
          this.take(event),
        );
      }),
    );
    for (const stream of opened) this.followed.set(stream.name, stream);
    await Promise.all(opened.map((stream) => stream.loaded));
    if (this.closed) return;
    // In one step: what arrived meanwhile is in the backlogs, what arrives next goes straight to `take`.
    const backlog = opened.flatMap((stream) => stream.backlog.splice(0)).sort(byTime);
    for (const stream of opened) stream.live = true;
    for (const event of backlog) this.take(event);
  }

  private take(event: Envelope): void {
    if (this.closed) return;
    event.seq = this.replica.lastSeq + 1;
    this.replica.add(event);
    this.arrivals.next(event);
  }
}

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeliverPolicy,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type ConsumerMessages,
  type JetStreamClient,
  type PubAck,
} from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import type { Envelope, ValidDraft } from '../../bus/index.js';
import { stampDraft, stampInPlace } from '../../bus/index.js';
import { eventSubject } from '../cluster/subjects.js';
import { LogError } from './errors.js';
import type { EventStore, LogQuery } from './event-store.js';
import { EventReplica } from './replica.js';

export interface JetStreamStoreOptions {
  /** The stream's name (default `TERN_EVENTS`). */
  stream?: string;
  /** Events are stored under `<root>.<type>.<session>` (default `tern.ev`). */
  subjectRoot?: string;
  readOnly?: boolean;
  /** How long one publish waits for the server's ack before it is sent again (same id, so stored once). */
  ackTimeoutMs?: number;
  /** The gateway writing: every event appended carries it as `gateway`, so cluster-wide reads say who wrote what. */
  gateway?: string;
  /**
   * Called once when another writer took the stream (a write of this store was refused for a seq already taken):
   * from then on this store writes nothing (see `JetStreamEventStore`).
   */
  onFenced?: (error: LogError) => void;
}

/** The stream refused a write because another writer appended first (JetStream's "wrong last sequence"). */
const WRONG_LAST_SEQUENCE = 10071;
/** The same, seen through the id of the write before (JetStream's "wrong last msg ID"). */
const WRONG_LAST_MSG_ID = 10070;

/** How long one pull of the follower waits: its heartbeats come twice as often, and two missed make it start over. */
export const FOLLOW_EXPIRES_MS = 5_000;

/** The header that names an event in the stream: `Nats-Msg-Id`, so a publish sent again is stored once. */
export const EVENT_ID_HEADER = 'Nats-Msg-Id';

interface Write {
  seq: number;
  subject: string;
  payload: string;
  id: string;
  /** The id of this store's write just before, when there was one: the stream must hold it last. */
  after: string | undefined;
  /** Settles when the stream holds this event (or the log failed). */
  done: Promise<void>;
}

/**
 * The event log as a JetStream stream: the cluster's shared, durable log (#27), behind the same `EventStore`
 * contract as the lmdb log (`tests/log/event-store-suite.ts` runs on both).
 * - `seq` is the stream's sequence. The store numbers an append at once, as the contract asks, and publishes it with
 *   `Nats-Expected-Last-Sequence` = seq - 1, so the stream either stores it under exactly that number or refuses it:
 *   one writer per stream, like the lmdb log's writer lock. A writer refused so (another member took the stream over,
 *   an expected event in a cluster) is fenced rather than renumbering what subscribers already saw: `onFenced` is
 *   called once, appends still number events but write nothing, and `committed()`/`flushed()` reject with
 *   `log_fenced`, so nothing waiting on the log (an inbound message's acknowledgement, a reply part's send) goes on as
 *   if it were stored. Its owner stops what runs on it and, if it still holds the stream, opens it again.
 * - Each event is published with `Nats-Msg-Id` = its event id (`<writer>:<seq>`, the writer being this store's
 *   random id). A publish whose ack did not come (timeout, reconnect) is sent again with the same id, and the stream
 *   stores it once (its duplicate window).
 * - Reads are synchronous, from a replica in memory that an ordered consumer keeps current: the store's own
 *   appends and another process's alike. `committed()` resolves once the replica holds every append so far.
 */
export class JetStreamEventStore implements EventStore {
  private seq: number;
  private readonly writerId = randomUUID();
  private lastWrite: Promise<void> = Promise.resolve();
  /** The id of the last event this store published. */
  private lastId: string | undefined;
  private failure: Error | undefined;
  /** Set once another writer took the stream: nothing is written after. */
  private fence: LogError | undefined;
  private closed = false;
  /** Readers of `committed()` waiting for the replica to reach a seq. */
  private readonly waiters: Array<{ seq: number; resolve: () => void }> = [];
  private readonly ackTimeoutMs: number;
  private readonly gateway: string | undefined;
  private readonly onFenced: ((error: LogError) => void) | undefined;

  private constructor(
    readonly stream: string,
    readonly subjectRoot: string,
    readonly readOnly: boolean,
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly replica: EventReplica,
    private readonly messages: ConsumerMessages,
    options: JetStreamStoreOptions,
  ) {
    this.seq = replica.lastSeq;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 5_000;
    this.gateway = options.gateway;
    this.onFenced = options.onFenced;
    void this.consume();
  }

  /**
   * Opens (creating it if absent and not read-only) the stream, reads it into the replica and follows it. The
   * connection stays the caller's: `close` leaves it open.
   */
  static async open(nc: NatsConnection, options: JetStreamStoreOptions = {}): Promise<JetStreamEventStore> {
    const stream = options.stream ?? 'TERN_EVENTS';
    const subjectRoot = options.subjectRoot ?? 'tern.ev';
    const readOnly = options.readOnly ?? false;
    const jsm = await jetstreamManager(nc);
    let lastSeq: number;
    try {
      lastSeq = (await jsm.streams.info(stream)).state.last_seq;
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.status === 404) || readOnly) {
        throw new LogError('log_missing', `no event stream ${stream} on the cluster: ${(error as Error).message}`);
      }
      await jsm.streams.add({
        name: stream,
        subjects: [`${subjectRoot}.>`],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        // A retried publish within this window is stored once.
        duplicate_window: 120_000_000_000,
      });
      lastSeq = 0;
    }
    const js = jetstream(nc);
    const consumer = await js.consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    // Pulls that expire every 5 s, with heartbeats every 2.5 s: after the server restarts the consumer notices within
    // seconds and starts over where it was (the default, 30 s pulls, left the log a minute behind).
    const messages = await consumer.consume({ expires: FOLLOW_EXPIRES_MS });
    const replica = new EventReplica();
    const store = new JetStreamEventStore(stream, subjectRoot, readOnly, nc, js, replica, messages, options);
    await store.reached(lastSeq);
    store.seq = Math.max(store.seq, replica.lastSeq);
    return store;
  }

  get lastSeq(): number {
    return this.seq;
  }

  stamp(draft: ValidDraft): Envelope {
    this.checkWritable();
    return this.write(this.signed(stampInPlace(draft, ++this.seq, draft.at ?? Date.now())));
  }

  append(draft: ValidDraft): Envelope {
    this.checkWritable();
    return this.write(this.signed(stampDraft(draft, ++this.seq, draft.at ?? Date.now())));
  }

  private signed(envelope: Envelope): Envelope {
    if (this.gateway !== undefined) envelope.gateway = this.gateway;
    return envelope;
  }

  /** The stream another writer took, if so: every append of this store since is not stored. */
  get fenced(): LogError | undefined {
    return this.fence;
  }

  async committed(): Promise<void> {
    await this.lastWrite;
    if (this.fence) throw this.fence;
    await this.reached(this.failure ? this.replica.lastSeq : this.seq);
  }

  async flushed(): Promise<void> {
    await this.committed();
    if (this.failure) throw new LogError('log_write_failed', this.failure.message);
  }

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

  /** The replica follows the stream by itself. */
  refresh(): void {}

  /** Stops following the stream; publishes still in flight finish on the connection (`closeAfterFlush` waits). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.messages.close();
    for (const waiter of this.waiters.splice(0)) waiter.resolve();
  }

  async closeAfterFlush(): Promise<void> {
    await this.flushed().catch(() => {});
    this.close();
  }

  private checkWritable(): void {
    if (this.readOnly) throw new LogError('log_write_failed', `the event stream ${this.stream} is open read-only`);
    if (this.closed) throw new LogError('log_closed', 'the event log is closed');
    if (this.failure) throw new LogError('log_write_failed', `an earlier write failed: ${this.failure.message}`);
  }

  private write(envelope: Envelope): Envelope {
    // Another writer holds the stream: what subscribers see now is this store's own, never stored.
    if (this.fence) return envelope;
    const previous = this.lastWrite;
    const write: Omit<Write, 'done'> = {
      seq: envelope.seq,
      subject: eventSubject(this.subjectRoot, envelope.type, envelope.session),
      payload: JSON.stringify(envelope),
      id: `${this.writerId}:${envelope.seq}`,
      after: this.lastId,
    };
    this.lastId = write.id;
    this.lastWrite = this.publish(write, previous).catch((error: Error) => {
      if (error instanceof LogError && error.code === 'log_fenced') this.fenceOff(error);
      else this.failure ??= error;
      for (const waiter of this.waiters.splice(0)) waiter.resolve();
    });
    return envelope;
  }

  /**
   * Publishes one event; the sends are pipelined in order on the connection. A failed send (no ack in time, the
   * connection dropped, or refused because the event before it is not stored yet) is sent again once the event
   * before it is settled, backing off up to 2 s, for as long as the connection lives: a server down for minutes is
   * waited out. The same id makes the stream store it once.
   */
  private async publish(write: Omit<Write, 'done'>, previous: Promise<void>): Promise<void> {
    const hdrs = headers();
    hdrs.set('Tern-Writer', this.writerId);
    for (let attempt = 0; ; attempt++) {
      let ack: PubAck;
      try {
        ack = await this.js.publish(write.subject, write.payload, {
          msgID: write.id,
          // Both: sequence alone would let a write sent right behind one another writer beat (pipelined) land
          // after the other writer's event under the seq it expected.
          expect: { lastSequence: write.seq - 1, ...(write.after ? { lastMsgID: write.after } : {}) },
          timeout: this.ackTimeoutMs,
          headers: hdrs,
        });
      } catch (error) {
        await previous;
        if (this.failure) throw this.failure;
        if (this.fence) throw this.fence;
        const refused =
          error instanceof JetStreamApiError && [WRONG_LAST_SEQUENCE, WRONG_LAST_MSG_ID].includes(error.code);
        // Refused with the event before this one stored: another writer appended in between.
        if (refused && attempt > 0) {
          const taken = `another writer appended to the event stream ${this.stream} (seq ${write.seq} is taken)`;
          throw new LogError('log_fenced', taken);
        }
        if (!refused && this.nc.isClosed()) {
          throw new LogError(
            'log_write_failed',
            `the event stream ${this.stream} did not store seq ${write.seq}: ${(error as Error).message}`,
          );
        }
        if (!refused) await sleep(Math.min(2_000, 50 * 2 ** Math.min(attempt, 6)));
        continue;
      }
      if (ack.seq !== write.seq)
        throw new LogError('log_write_failed', `the event stream ${this.stream} stored seq ${write.seq} as ${ack.seq}`);
      return;
    }
  }

  private async consume(): Promise<void> {
    try {
      for await (const message of this.messages) {
        const envelope = message.json<Envelope>();
        if (envelope.seq !== message.seq) {
          this.failure ??= new LogError(
            'log_write_failed',
            `stream message ${message.seq} holds event seq ${envelope.seq}`,
          );
          continue;
        }
        this.replica.add(envelope);
        this.release();
      }
    } catch (error) {
      this.failure ??= error as Error;
      for (const waiter of this.waiters.splice(0)) waiter.resolve();
    }
  }

  private fenceOff(error: LogError): void {
    if (this.fence) return;
    this.fence = error;
    this.onFenced?.(error);
  }

  private release(): void {
    const last = this.replica.lastSeq;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i]!.seq <= last) this.waiters.splice(i, 1)[0]!.resolve();
    }
  }

  /** Resolves once the replica holds `seq` (or the store closed or failed). */
  private reached(seq: number): Promise<void> {
    if (this.replica.lastSeq >= seq || this.closed || this.failure) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }
}

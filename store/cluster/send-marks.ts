import type { KV } from '@nats-io/kv';
import type { NatsConnection, Status } from '@nats-io/transport-node';
import type { EventStore } from '../log/event-store.js';
import type { PartJournal } from '../log/send-journal.js';
import { ClusterError } from './errors.js';
import { ttlBucket } from './kv-bucket.js';

/** The KV bucket of the marks: every channel account's. */
export const SEND_MARKS_BUCKET = 'tern_sending';

/**
 * How long a mark is kept: it matters only until a member takes the account over after a crash. A cluster down for
 * longer than this takes a part that was leaving at the crash as never sent, and sends it again.
 */
const MARK_TTL_MS = 24 * 60 * 60 * 1000;

/** KV keys allow `[-/_=.a-zA-Z0-9]`: the account and the send key are written base64url. */
const keyOf = (account: string, sendKey: string): string =>
  `${Buffer.from(account, 'utf8').toString('base64url')}.${Buffer.from(sendKey, 'utf8').toString('base64url')}`;

/**
 * The send journal of a channel account in a cluster (#40): which reply parts may have left, as entries of KV bucket
 * `tern_sending`, so that the member taking the account over knows them as a restarted gateway knows its journal
 * file. A part is marked as its request starts being written (`Outbox`), published without waiting for the server,
 * as the file's line is written without a sync; its mark is deleted once its `message.sent` is in the stream.
 * A part whose `message.sending` is in the stream and that has no mark never left: the next holder sends it.
 */
export class SendMarks implements PartJournal {
  /** Whether the connection is up, as its last status said: a mark published while it is down may never arrive. */
  private up = true;
  private readonly statuses: AsyncIterable<Status> & { stop?: () => void };

  private constructor(
    nc: NatsConnection,
    private readonly kv: KV,
    private readonly account: string,
    readonly before: ReadonlySet<string>,
    private readonly held: () => boolean,
  ) {
    const statuses = nc.status();
    this.statuses = statuses;
    void (async () => {
      for await (const status of statuses) {
        if (status.type === 'disconnect') this.up = false;
        else if (status.type === 'reconnect') this.up = true;
      }
    })();
  }

  /**
   * The account's marks, with those of the parts its stream shows intended and not sent read at once (`before`).
   * `held` says whether this member's lease on the account is still good (`Leases.valid`).
   */
  static async open(nc: NatsConnection, account: string, log: EventStore, held: () => boolean): Promise<SendMarks> {
    const kv = await ttlBucket(nc, SEND_MARKS_BUCKET, MARK_TTL_MS);
    const open = new Set<string>();
    for (const event of log.iterate({ type: 'message.sending,message.sent' })) {
      const { send_key: key } = event.data as { send_key: string };
      if (event.type === 'message.sending') open.add(key);
      else open.delete(key);
    }
    const before = new Set<string>();
    await Promise.all(
      [...open].map(async (key) => {
        const entry = await kv.get(keyOf(account, key));
        if (entry && entry.operation === 'PUT') before.add(key);
      }),
    );
    return new SendMarks(nc, kv, account, before, held);
  }

  /**
   * Throws, before the part leaves, once this member's lease on the account may have run out: the member that took
   * the account over sends the parts whose intents have no mark, so a member that stalled past the TTL between a
   * part's intent and its request would send it a second time (#40: one run of the failover loop in five did).
   * Throws too while the connection is down: the mark would wait in the client, reach the server only after the
   * member taking the account over read the marks, and that member would send the part again (#40's chaos doubles,
   * a member cut off from NATS while its parts were leaving).
   */
  mark(key: string): void {
    if (!this.held())
      throw new ClusterError('lease_lost', `the lease on channel account ${this.account} ran out before the part left`);
    if (!this.up)
      throw new ClusterError('lease_lost', `no connection to NATS to mark a part of channel account ${this.account}`);
    void this.kv.put(keyOf(this.account, key), '').catch(() => undefined);
  }

  settle(key: string): void {
    void this.kv.delete(keyOf(this.account, key)).catch(() => undefined);
  }

  /** The marks of parts still in doubt stay in the bucket as they are. */
  restart(): void {}

  close(): void {
    this.statuses.stop?.();
  }
}

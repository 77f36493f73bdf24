import type { KV } from '@nats-io/kv';
import type { NatsConnection, Status } from '@nats-io/transport-node';
import type { EventStore } from '../log/event-store.js';
import type { SharedJournal } from '../log/send-journal.js';
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
 * file. Unlike the file, a part's mark is stored, the server's answer awaited, before its request is dispatched
 * (`Outbox`): a mark still on its way when the member was killed or cut off from NATS was lost with it, and the next
 * holder sent the part again. A request that fails before its first byte is written is unmarked (it never left, and
 * is sent by whoever runs the account next); the mark is deleted once the part's `message.sent` is in the stream.
 * A part whose `message.sending` is in the stream and that has no mark never left: the next holder sends it. The cost:
 * a part marked by a member that dies between the answer and the request's first byte is taken as maybe sent.
 */
export class SendMarks implements SharedJournal {
  readonly kind = 'shared';
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
   * Stores the part's mark and resolves once the server has it; throws (`lease_lost`), and the part is not sent yet,
   * once this member's lease on the account may have run out, before or while the mark was stored: the member that
   * took the account over sends the parts whose intents had no mark when it read them, so a member that stalled past
   * the TTL would send such a part a second time (#40: one run of the failover loop in five did). While the lease is
   * good by this member's clock its entry has not expired on the server, so no other member has read the marks yet.
   * Throws too while the connection is down, so that no mark waits in the client for the connection to come back.
   */
  async store(key: string): Promise<void> {
    const lost = (): ClusterError =>
      new ClusterError('lease_lost', `the lease on channel account ${this.account} ran out before the part left`);
    if (!this.held()) throw lost();
    if (!this.up)
      throw new ClusterError('lease_lost', `no connection to NATS to mark a part of channel account ${this.account}`);
    try {
      await this.kv.put(keyOf(this.account, key), '');
    } catch (error) {
      this.unmark(key);
      const message = `the mark of a part of channel account ${this.account} was not stored`;
      throw new ClusterError('mark_not_stored', message, { cause: error });
    }
    if (this.held()) return;
    this.unmark(key);
    throw lost();
  }

  /** The part's request failed before its first byte was written: it never left. */
  unmark(key: string): void {
    this.settle(key);
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

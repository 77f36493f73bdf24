import type { KV } from '@nats-io/kv';
import type { NatsConnection, Status } from '@nats-io/transport-node';
import type { EventStore } from '../log/event-store.js';
import type { LogFields } from '../logs/logger.js';
import type { SharedJournal } from '../log/send-journal.js';
import { ClusterError } from './errors.js';
import { LEFT, type LeftMarks } from './left-marks.js';
import { sendMarksBucket } from './send-marks-bucket.js';

export { SEND_MARKS_BUCKET } from './send-marks-bucket.js';

/** KV keys allow `[-/_=.a-zA-Z0-9]`: the account and the send key are written base64url. */
const keyOf = (account: string, sendKey: string): string =>
  `${Buffer.from(account, 'utf8').toString('base64url')}.${Buffer.from(sendKey, 'utf8').toString('base64url')}`;

/**
 * A mark's values: the part is about to leave (`leaving:<member>:<server>`, stored, acknowledged, before its request
 * is dispatched by that member; `server` is the id of the NATS server that stored it, new at each start of the
 * server) or left (`left`, `left-marks.ts`). Gateway ids have no `:`.
 */
const LEAVING = 'leaving';
const leavingBy = (member: string, server: string | undefined): string =>
  `${LEAVING}:${member}${server ? `:${server}` : ''}`;

/**
 * What the member taking the account over reads in a mark: the part may have left (`left`, or the empty mark of a
 * member from before `left` existed), it was leaving (by which member and through which server, when the mark says),
 * or nothing.
 */
type Read =
  | { kind: 'left' }
  | { kind: 'leaving'; by: string | undefined; server: string | undefined }
  | { kind: 'none' };

const readMark = (value: string | undefined): Read => {
  if (value === undefined) return { kind: 'none' };
  if (value === LEAVING) return { kind: 'leaving', by: undefined, server: undefined };
  if (!value.startsWith(`${LEAVING}:`)) return { kind: 'left' };
  const [by, server] = value.slice(LEAVING.length + 1).split(':');
  return { kind: 'leaving', by, server };
};

const markOf = async (kv: KV, key: string): Promise<Read> => {
  const entry = await kv.get(key);
  return readMark(entry && entry.operation === 'PUT' ? entry.string() : undefined);
};

/** The member writing the marks: its id (in `leaving` marks) and its unacknowledged `left` marks. */
export interface MemberMarks {
  id: string;
  marks: LeftMarks;
}

/**
 * The send journal of a channel account in a cluster (#40): which reply parts may have left, as entries of KV bucket
 * `tern_sending`, so that the member taking the account over knows them as a restarted gateway knows its journal file.
 * A part is marked twice. `leaving` is stored, the server's answer awaited, before its request is dispatched (`store`):
 * it proves this member reaches NATS right then, so a member cut off from it (a split, a publish lost on its way)
 * sends nothing. `left` is published as the request's first byte is about to be written (`left`, unawaited) and is in
 * the kernel's socket buffer before the request is: a member killed at any moment leaves the server either no `left`
 * (the request was never written: the next holder sends the part) or a `left` its kernel still delivers (the part
 * may have reached the chat: it is not sent again). So a SIGKILL loses no part and doubles none, as the local journal
 * file written just before the request (`store/log/send-journal.ts`). A `left` mark lost on its way (the server
 * killed, a split, with the mark in a socket buffer or on the path) leaves only `leaving`: the member that wrote it
 * keeps it until the server acknowledges it, in memory and in a file of its home, and writes it again at every
 * reconnect and when started again on that home (`LeftMarks`); the member taking the account over asks it before
 * sending such a part, and takes the part as maybe sent when it is gone from a server that started again since the
 * mark (`open`). What remains, for a member not started again on its home within `GONE_AFTER_MS`: a `left` mark lost
 * while the server kept running (the server dropped the split member's connection, a reset on the path) sends the
 * part twice; a part whose request was never written, `leaving` on a server that started again since, is not sent.
 * A request that fails before its first byte is written, or that the platform certainly did not take, is unmarked;
 * the mark is deleted once the part's `message.sent` is in the stream.
 */
export class SendMarks implements SharedJournal {
  readonly kind = 'shared';
  /** Whether the connection is up, as its last status said: a mark published while it is down may never arrive. */
  private up = true;
  private readonly statuses: AsyncIterable<Status> & { stop?: () => void };

  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
    private readonly account: string,
    readonly before: ReadonlySet<string>,
    private readonly member: MemberMarks,
    private readonly held: () => boolean,
    private readonly warn: (message: string, fields: LogFields) => void,
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
   * The account's marks as the previous holder left them: a part marked `left` may have left and is not sent again.
   * A part only `leaving` may have left too, its `left` mark lost on its way (#40): the member that marked it is asked
   * first (`LeftMarks.heardFrom`). Once it answered (its marks, and those its file kept from before a kill, are
   * stored) the mark is read again: still only `leaving`, the part never left and is sent. Once it is gone (no
   * connection on the server for `GONE_AFTER_MS`), the server that stored the mark says which: if it is the server
   * this member reaches now, the member's connection closed while that server ran, which a kill does after its
   * kernel delivered every mark written before (never left: sent); if the server started again since, the `left`
   * mark may have been lost with it while the member was cut off and then killed, so the part may have left (not sent
   * again: a second copy is the worse mistake; its mark becomes `left`).
   */
  static async open(
    nc: NatsConnection,
    account: string,
    log: EventStore,
    member: MemberMarks,
    held: () => boolean,
    warn: (message: string, fields: LogFields) => void = () => undefined,
  ): Promise<SendMarks> {
    const kv = await sendMarksBucket(nc);
    const open = new Set<string>();
    for (const event of log.iterate({ type: 'message.sending,message.sent' })) {
      const { send_key: key } = event.data as { send_key: string };
      if (event.type === 'message.sending') open.add(key);
      else open.delete(key);
    }
    const before = new Set<string>();
    const doubts = new Map<string, { key: string; server: string | undefined }[]>();
    await Promise.all(
      [...open].map(async (key) => {
        const mark = await markOf(kv, keyOf(account, key));
        if (mark.kind === 'left') before.add(key);
        else if (mark.kind === 'leaving' && mark.by !== undefined)
          doubts.set(mark.by, [...(doubts.get(mark.by) ?? []), { key, server: mark.server }]);
      }),
    );
    await Promise.all(
      [...doubts].map(async ([by, parts]) => {
        warn('parts marked leaving only; asking the member that sent them whether they left', {
          account,
          gateway: by,
          parts: parts.length,
        });
        const heard = await member.marks.heardFrom(by);
        const restarted = (server: string | undefined) => server !== undefined && server !== nc.info?.server_id;
        let left = 0;
        let unknown = 0;
        for (const { key, server } of parts) {
          if ((await markOf(kv, keyOf(account, key))).kind === 'left') left += 1;
          else if (heard === 'gone' && restarted(server)) {
            // Decided once: a later holder reads `left` rather than ask a member that may be back without the mark.
            await kv.put(keyOf(account, key), LEFT);
            unknown += 1;
          } else continue;
          before.add(key);
        }
        const fields = { account, gateway: by, heard, parts: parts.length, left, server_restarted: unknown };
        warn('parts marked leaving only are settled', fields);
      }),
    );
    return new SendMarks(nc, kv, account, before, member, held, warn);
  }

  /**
   * Stores the part's `leaving` mark and resolves once the server has it; throws (`lease_lost`), and the part is not
   * sent yet, once this member's lease on the account may have run out, before or while the mark was stored: the
   * member that took the account over sends the parts with no `left` mark when it read them, so a member that stalled
   * past the TTL would send such a part a second time (#40: one run of the failover loop in five did). While the lease
   * is good by this member's clock its entry has not expired on the server, so no other member has read the marks yet.
   * Throws too while the connection is down, so that no mark waits in the client for the connection to come back.
   */
  async store(key: string): Promise<void> {
    this.check();
    try {
      await this.kv.put(keyOf(this.account, key), leavingBy(this.member.id, this.nc.info?.server_id));
    } catch (error) {
      this.unmark(key);
      const message = `the mark of a part of channel account ${this.account} was not stored`;
      throw new ClusterError('mark_not_stored', message, { cause: error });
    }
    if (this.held()) return;
    this.unmark(key);
    throw this.lost();
  }

  /**
   * The part's request is about to be written (undici's `onRequestStart`, on the connection, #40): its `left` mark is
   * in this process's socket to NATS when this returns, so it reaches the kernel before the request's first byte.
   * Why the order holds (read in @nats-io/nats-core 3 and @nats-io/kv): `kv.put` runs synchronously down to the
   * connection's `publish` (its awaits come after it), which appends the message to the client's outbound buffer;
   * `flush()` appends a PING and writes that buffer to the socket at once (`flushPending`), where a publish alone is
   * written in a microtask, after undici has written the request in this same call. Node writes to a socket with
   * nothing queued before it synchronously (`uv_try_write`); a socket the server is not reading queues the mark in
   * the process instead, and a SIGKILL then loses it (the part may be sent twice). The mark's acknowledgement is not
   * awaited: a refusal is logged, and the part counts as left whatever the server said. Throws, and the caller does
   * not write the request, when the lease may have run out or the connection is down since `store`, or when the
   * client did not take the publish at once.
   */
  left(key: string): void {
    this.check();
    const before = this.nc.stats().outBytes;
    this.member.marks.put(this.kv, keyOf(this.account, key), (error: unknown) =>
      this.warn('the mark of a part that left was not acknowledged; it is written again at the next reconnect', {
        account: this.account,
        reason: (error as Error)?.message ?? String(error),
      }),
    );
    if (this.nc.stats().outBytes === before)
      throw new ClusterError('mark_not_stored', `the mark of a part of channel account ${this.account} was not taken`);
    this.nc.flush().catch(() => undefined);
  }

  private check(): void {
    if (!this.held()) throw this.lost();
    if (!this.up)
      throw new ClusterError('lease_lost', `no connection to NATS to mark a part of channel account ${this.account}`);
  }

  private lost(): ClusterError {
    return new ClusterError('lease_lost', `the lease on channel account ${this.account} ran out before the part left`);
  }

  /** The part's request failed before its first byte was written: it never left. */
  unmark(key: string): void {
    this.settle(key);
  }

  settle(key: string): void {
    this.member.marks.drop(keyOf(this.account, key));
    void this.kv.delete(keyOf(this.account, key)).catch(() => undefined);
  }

  /** The marks of parts still in doubt stay in the bucket as they are. */
  restart(): void {}

  close(): void {
    this.statuses.stop?.();
  }
}

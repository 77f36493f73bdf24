import { setTimeout as sleep } from 'node:timers/promises';
import type { KV } from '@nats-io/kv';
import { RequestError, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { RECONNECT_MAX_MS } from './connection.js';
import { ClusterError } from './errors.js';
import type { LeftFile } from './left-file.js';
import { sendMarksBucket } from './send-marks-bucket.js';
import { idToken } from './subjects.js';

/** A `left` mark's value in bucket `tern_sending` (`send-marks.ts`). */
export const LEFT = 'left';

/** Where a member answers once every `left` mark it wrote and the server may not have is stored (#40). */
const settledSubject = (member: string): string => `tern.sending.settled.${idToken(member)}`;

/** How long one question to a member waits for its answer. */
const ASK_TIMEOUT_MS = 2_000;
const ASK_EVERY_MS = 250;
/**
 * How long a member's connection must be missing from the server before the member counts as gone: a live member
 * reconnects within its longest pause between tries (`RECONNECT_MAX_MS`), the margin is for a loaded machine.
 */
export const GONE_AFTER_MS = RECONNECT_MAX_MS + 3_000;

/** What asking a member whether its `left` marks are stored came to. */
type Heard = 'answered' | 'absent' | 'silent';

/**
 * A member's `left` marks the server has not acknowledged yet (#40). A mark still in a socket buffer or on the path
 * when the NATS server is killed or the link splits is lost, while its request was written; the member taking the
 * account over would read only `leaving` and send the part again. So this member keeps each such mark until the
 * server acknowledges it, in memory and in a file of its home (`LeftFile`, written before the request), writes them
 * all again at every reconnect and first thing when it starts again after being killed, and answers the members that
 * ask (`settledSubject`) only once they are stored: a member taking an account over asks the previous holder of each
 * part it finds `leaving` (`heardFrom`) before it decides the part never left.
 */
export class LeftMarks {
  /** The marks by key, with the bucket to write them to; none for those the file kept from the previous run. */
  private readonly unconfirmed = new Map<string, KV | undefined>();
  private connectedAt = Date.now();
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly subscription: Subscription;
  private opened: Promise<KV> | undefined;

  private constructor(
    private readonly nc: NatsConnection,
    member: string,
    private readonly file: LeftFile | undefined,
  ) {
    for (const key of file?.restored ?? []) this.unconfirmed.set(key, undefined);
    if (this.unconfirmed.size > 0) void this.rewrite().catch(() => undefined);
    // The answer goes only once the marks are stored: an answer is the asker's proof that it reads them all.
    this.subscription = nc.subscribe(settledSubject(member), {
      callback: (error, msg) => {
        if (error) return;
        void this.rewrite().then(
          () => msg.respond(),
          () => undefined,
        );
      },
    });
    void (async () => {
      for await (const status of nc.status()) {
        if (this.stopped) return;
        if (status.type !== 'reconnect') continue;
        this.connectedAt = Date.now();
        void this.rewrite().catch(() => undefined);
      }
    })();
  }

  /**
   * Starts answering for `member`; with `file`, the marks a previous run of this member left there are written to NATS
   * at once, and every question is answered only after them.
   */
  static start(nc: NatsConnection, member: string, file?: LeftFile): LeftMarks {
    return new LeftMarks(nc, member, file);
  }

  /**
   * Writes `key`'s `left` mark to the file, then to NATS unawaited: the publish is in the client's outbound buffer
   * when this returns (`SendMarks.left` relies on it). Kept until the server acknowledges it. Throws, and the part's
   * request must not be written, when the file refused the line.
   */
  put(kv: KV, key: string, warn: (error: unknown) => void): void {
    try {
      this.file?.add(key);
    } catch (error) {
      throw new ClusterError('mark_not_stored', `the left mark of a part was not written to its file`, {
        cause: error,
      });
    }
    this.unconfirmed.set(key, kv);
    kv.put(key, LEFT).then(
      () => this.confirmed(key, kv),
      (error: unknown) => warn(error),
    );
  }

  /** The part's `message.sent` is stored, or it never left: its mark no longer matters. */
  drop(key: string): void {
    if (this.unconfirmed.delete(key)) this.file?.settled(this.unconfirmed);
  }

  /** When this member's connection to NATS came up last. */
  connectedSince(): number {
    return this.connectedAt;
  }

  /**
   * Resolves once `member` said its `left` marks are stored, or its connection has been missing from the server for
   * `GONE_AFTER_MS` while this member's was up (it is dead, or cut off for longer than a split it rejoins after).
   * A member the server still lists but that does not answer (a split the server has not noticed, a stalled process)
   * is waited for: the server drops a connection that stops answering its pings.
   */
  async heardFrom(member: string): Promise<'answered' | 'gone'> {
    let absentSince: number | undefined;
    for (;;) {
      const heard = await this.ask(member);
      if (heard === 'answered') return 'answered';
      if (heard === 'absent') {
        absentSince = Math.max(absentSince ?? Date.now(), this.connectedAt);
        if (Date.now() - absentSince >= GONE_AFTER_MS) return 'gone';
      } else absentSince = undefined;
      await sleep(ASK_EVERY_MS);
    }
  }

  stop(): void {
    this.stopped = true;
    this.subscription.unsubscribe();
    this.file?.close();
  }

  private async ask(member: string): Promise<Heard> {
    try {
      await this.nc.request(settledSubject(member), undefined, { timeout: ASK_TIMEOUT_MS });
      return 'answered';
    } catch (error) {
      return error instanceof RequestError && error.isNoResponders() ? 'absent' : 'silent';
    }
  }

  private confirmed(key: string, kv: KV | undefined): void {
    if (this.unconfirmed.get(key) === kv && this.unconfirmed.delete(key)) this.file?.settled(this.unconfirmed);
  }

  /** Writes every unacknowledged mark again, awaited; one write at a time, so an answer follows all before it. */
  private rewrite(): Promise<void> {
    const run = async (): Promise<void> => {
      await Promise.all(
        [...this.unconfirmed].map(async ([key, kv]) => {
          await (kv ?? (await this.bucket())).put(key, LEFT);
          this.confirmed(key, kv);
        }),
      );
    };
    const next = this.writing.then(run, run);
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** The marks' bucket, for the marks restored from the file (those written in this run come with theirs). */
  private bucket(): Promise<KV> {
    this.opened ??= sendMarksBucket(this.nc);
    return this.opened;
  }
}

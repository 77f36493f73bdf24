import type { Subscription } from 'rxjs';
import type { Bus, Envelope } from '../bus/index.js';

/** Events between two checkpoints: recovery after a crash reads at most about this many (plus the work still open). */
export const CHECKPOINT_EVERY = 2000;

/**
 * Follows the accepted work on the bus (a message from its `message.received` until its reply's `reply.delivered`)
 * and every `every` events records `recovery.checkpointed` with the seq of the oldest message not finished (or the
 * next seq when none is open): recovery after a crash folds the log from there, not from the last start.
 */
export class Checkpoints {
  /** Accepted messages not finished, by `<channel>:<message id>`, with the seq they were accepted at. */
  private readonly open = new Map<string, number>();
  /** Reply send keys, to the message they answer. */
  private readonly replies = new Map<string, string>();
  /** Routed messages not answered yet, by session and id, to the message they are (a dropped one has no reply). */
  private readonly routed = new Map<string, string>();
  private since = 0;
  private lastSeq = 0;
  private readonly subscription: Subscription;

  constructor(
    private readonly bus: Bus,
    private readonly every = CHECKPOINT_EVERY,
  ) {
    this.subscription = bus.events$.subscribe((event) => {
      this.lastSeq = event.seq;
      this.follow(event);
      if (event.type !== 'recovery.checkpointed' && ++this.since >= this.every) this.record();
    });
  }

  /** Work accepted before this run and taken up again (recovery's): open until finished, like new work. */
  take(work: Envelope[]): void {
    for (const event of work) this.follow(event);
  }

  /** Records where recovery would start now (also at a clean stop, so the next start reads little). */
  record(): void {
    this.since = 0;
    let from = this.lastSeq + 1;
    for (const seq of this.open.values()) from = Math.min(from, seq);
    this.bus.publish({ type: 'recovery.checkpointed', data: { from_seq: from } });
  }

  stop(): void {
    this.subscription.unsubscribe();
  }

  private follow(event: Envelope): void {
    switch (event.type) {
      case 'message.received':
        if (event.data.reply_to !== undefined) this.accept(`${event.data.channel}:${event.data.message_id}`, event.seq);
        break;
      case 'message.routed':
        if (!event.data.reply) break;
        this.accept(`${event.data.reply.channel}:${event.data.message_id}`, event.seq);
        this.routed.set(
          `${event.session}\u0000${event.data.message_id}`,
          `${event.data.reply.channel}:${event.data.message_id}`,
        );
        break;
      case 'message.dropped': {
        const key = this.routed.get(`${event.session}\u0000${event.data.message_id}`);
        if (key === undefined) break;
        this.routed.delete(`${event.session}\u0000${event.data.message_id}`);
        this.open.delete(key);
        break;
      }
      case 'reply.requested':
        if (!event.data.reply) break;
        this.routed.delete(`${event.session}\u0000${event.data.message_id}`);
        this.accept(`${event.data.reply.channel}:${event.data.message_id}`, event.seq);
        this.replies.set(event.data.key, `${event.data.reply.channel}:${event.data.message_id}`);
        break;
      case 'reply.delivered': {
        const key = this.replies.get(event.data.key);
        if (key === undefined) break;
        this.replies.delete(event.data.key);
        this.open.delete(key);
        break;
      }
      default:
    }
  }

  private accept(key: string, seq: number): void {
    if (!this.open.has(key)) this.open.set(key, seq);
  }
}

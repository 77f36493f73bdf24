import type { Subscription } from 'rxjs';
import type { Bus, Correlation, EventData, ReplyOutcome, ReplyTarget } from '../../bus/index.js';

export interface Delivery {
  message_id: string;
  /** The send key of its parts (`:<part>` is added). */
  key: string;
  text: string;
  reply: ReplyTarget;
  outcome: ReplyOutcome;
  correlation?: Correlation;
  /** Buttons under the last part (an approval's question). */
  choices?: EventData<'reply.requested'>['choices'];
  /** Files sent with the text. */
  files?: EventData<'reply.requested'>['files'];
}

/** The `reply.requested` data of a delivery: what the outbox takes. */
export function requestOf(delivery: Delivery): EventData<'reply.requested'> & { reply: ReplyTarget } {
  const { message_id, key, text, reply, outcome, choices, files } = delivery;
  return { message_id, outcome, text, key, reply, ...(choices ? { choices } : {}), ...(files?.length ? { files } : {}) };
}

/**
 * Request and answer over the bus for text that is not a turn's reply (a message tool call, a heartbeat answer, a
 * cron job's text): publishes it as `reply.requested` for the outbox and resolves with whether every part went out,
 * once `reply.delivered` says the outbox is done with it.
 */
export class Deliveries {
  private readonly waiting = new Map<string, (delivered: boolean) => void>();
  private readonly subscription: Subscription;

  constructor(private readonly bus: Bus) {
    this.subscription = bus.on('reply.delivered').subscribe((event) => {
      const resolve = this.waiting.get(event.data.key);
      if (!resolve) return;
      this.waiting.delete(event.data.key);
      resolve(!event.data.failed);
    });
  }

  send(delivery: Delivery): Promise<boolean> {
    const done = new Promise<boolean>((resolve) => this.waiting.set(delivery.key, resolve));
    this.bus.publish({ ...delivery.correlation, type: 'reply.requested', data: requestOf(delivery) });
    return done;
  }

  /** Nothing more will be delivered (the gateway stopped): whoever still waits hears `false`. */
  close(): void {
    this.subscription.unsubscribe();
    for (const resolve of this.waiting.values()) resolve(false);
    this.waiting.clear();
  }
}

import {
  RequestAbortedError,
  RequestTimeoutError,
  type Bus,
  type Correlation,
  type EventData,
  type ReplyOutcome,
  type ReplyTarget,
  type RequestClock,
} from '../bus/index.js';

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
  /** A message of the chat this text replaces, where the platform edits (a tool notice shown before). */
  edit_of?: string;
}

/** The `reply.requested` data of a delivery: what the outbox takes. */
export function requestOf(delivery: Delivery): EventData<'reply.requested'> & { reply: ReplyTarget } {
  const { message_id, key, text, reply, outcome, choices, files, edit_of } = delivery;
  return {
    message_id,
    outcome,
    text,
    key,
    reply,
    ...(choices ? { choices } : {}),
    ...(files?.length ? { files } : {}),
    ...(edit_of !== undefined ? { edit_of } : {}),
  };
}

/**
 * How long a delivery may take before its sender hears `false`: longer than the outbox's tries of a reply can last
 * (`send_attempts` tries, each pause at most the 5 minutes a platform may ask for).
 */
export const DELIVERY_TIMEOUT_MS = 30 * 60_000;

/**
 * Request and answer over the bus for text that is not a turn's reply (a message tool call, a heartbeat answer, a
 * cron job's text): publishes it as `reply.requested` for the outbox and resolves with whether every part went out,
 * once `reply.delivered` says the outbox is done with it; `false` when that takes longer than `DELIVERY_TIMEOUT_MS`
 * or the deliveries were closed.
 */
export class Deliveries {
  private readonly closed = new AbortController();

  /** `clock`: the timer of `DELIVERY_TIMEOUT_MS` (real time by default; tests move one by hand). */
  constructor(
    private readonly bus: Bus,
    private readonly clock?: RequestClock,
  ) {}

  send(delivery: Delivery): Promise<boolean> {
    const draft = { ...delivery.correlation, type: 'reply.requested' as const, data: requestOf(delivery) };
    return this.bus
      .request(draft, {
        reply: {
          on: ['reply.delivered'],
          pick: (event) => (event.data.key === delivery.key ? !event.data.failed : undefined),
        },
        timeoutMs: DELIVERY_TIMEOUT_MS,
        signal: this.closed.signal,
        ...(this.clock ? { clock: this.clock } : {}),
      })
      .catch((error: unknown) => {
        if (error instanceof RequestTimeoutError || error instanceof RequestAbortedError) return false;
        throw error;
      });
  }

  /** Nothing more will be delivered (the gateway stopped): whoever still waits hears `false`. */
  close(): void {
    this.closed.abort('the gateway stopped');
  }
}

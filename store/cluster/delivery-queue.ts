import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { validateDraft, type EventData } from '../../bus/index.js';
import { subjectCounts } from './subject-counts.js';
import { consumeInOrder, IN_FLIGHT, type OrderedConsumer } from './in-order.js';
import { openWorkQueue } from './work-queue-stream.js';
import { idToken, tokenId } from './subjects.js';

/** The work-queue stream of replies that wait for the member running their channel account. */
export const DELIVERY_STREAM = 'TERN_DELIVER';
const ROOT = 'tern.deliver';

/** A reply to a chat of one channel account: a `reply.requested` with its target, as the account's outbox takes it. */
export type Delivery = EventData<'reply.requested'> & { reply: NonNullable<EventData<'reply.requested'>['reply']> };

/** How long a delivery handed to a member may stay unacknowledged before it is handed again (to the next holder). */
const ACK_WAIT_MS = 10_000;
/** A delivery nobody took (its account left `channel_list`) is dropped after a day. */
const MAX_AGE_MS = 24 * 60 * 60_000;
/** How long a publish waits for the stream's ack before it fails. */
const PUBLISH_TIMEOUT_MS = 5_000;

const subjectOf = (account: string): string => `${ROOT}.${idToken(account)}`;
/**
 * The account a subject of the stream is for; undefined for one `subjectOf` never makes (published by someone else).
 */
const accountOf = (subject: string): string | undefined =>
  subject.startsWith(`${ROOT}.`) ? tokenId(subject.slice(ROOT.length + 1)) : undefined;
/** A consumer name takes no `.`, `*`, `>`, whitespace or path separator; the token has none. */
const consumerOf = (account: string): string => `deliver-${idToken(account)}`;

/**
 * Replies that do not start from an inbound message (a heartbeat answer, a cron job's text, the `message` tool) for
 * a chat of a channel account another member may run (#27): the account's stream has one writer, the member holding
 * the account's lease, so the text goes to that member through JetStream work-queue stream `TERN_DELIVER`, subject
 * `tern.deliver.<account>`, with one durable consumer per account. Whoever holds the account consumes it; a delivery
 * is acknowledged once the holder's log has it as `reply.requested`, so a holder that dies before that leaves it to
 * the next one (after `ACK_WAIT_MS`), and one that dies after leaves it to the log's crash recovery. Each is published
 * with `Nats-Msg-Id` = its send key, so a retried publish is queued once.
 */
export class DeliveryQueue {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
  ) {}

  /** Opens the stream, creating it if absent (members starting at once: all but one find it made). */
  static async open(nc: NatsConnection): Promise<DeliveryQueue> {
    await openWorkQueue(nc, { name: DELIVERY_STREAM, subjects: [`${ROOT}.>`], max_age: MAX_AGE_MS * 1_000_000 });
    return new DeliveryQueue(nc, jetstream(nc));
  }

  /** Queues a reply for the member running `account`; resolves once the stream holds it. */
  async enqueue(account: string, delivery: Delivery): Promise<void> {
    await this.js.publish(subjectOf(account), JSON.stringify(delivery), {
      msgID: delivery.key,
      timeout: PUBLISH_TIMEOUT_MS,
    });
  }

  /**
   * Takes the account's deliveries in order (`consumeInOrder`): `handle` resolves once the delivery is in the
   * account's log, and only then is it acknowledged. A delivery that fails to parse is dropped (`invalid`); one whose
   * `handle` throws is handed again later.
   */
  async consume(
    account: string,
    handle: (delivery: Delivery) => Promise<void>,
    invalid: (reason: string) => void,
  ): Promise<OrderedConsumer> {
    const jsm = await jetstreamManager(this.nc);
    const name = consumerOf(account);
    // A consumer an earlier version made took one delivery at a time: it is brought to this one's settings.
    await jsm.consumers
      .add(DELIVERY_STREAM, {
        durable_name: name,
        filter_subject: subjectOf(account),
        deliver_policy: DeliverPolicy.All,
        ack_policy: AckPolicy.Explicit,
        ack_wait: ACK_WAIT_MS * 1_000_000,
        max_deliver: -1,
        max_ack_pending: IN_FLIGHT,
      })
      .catch(() => jsm.consumers.update(DELIVERY_STREAM, name, { max_ack_pending: IN_FLIGHT }));
    return consumeInOrder(this.js, DELIVERY_STREAM, name, {
      parse: (message): Delivery => {
        const data = validateDraft({ type: 'reply.requested', data: message.json() }).data;
        if (!data.reply) throw new Error('it names no chat');
        return { ...data, reply: data.reply };
      },
      handle,
      invalid,
    });
  }
}

/** Texts that wait in the stream for one channel account: relayed, not yet taken by the member running it. */
export interface QueuedTexts {
  account: string;
  texts: number;
}

/**
 * The texts waiting per channel account, sorted by account, from the stream's per-subject counts in one request: a
 * taken text is acknowledged and so gone from the work queue, so what is counted is what no holder has recorded yet.
 * Empty when no member ever opened the stream. Subjects that name no account (`accountOf`) are left out: no member
 * would ever take them.
 */
export async function queuedTexts(nc: NatsConnection): Promise<QueuedTexts[]> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  let subjects: Record<string, number>;
  try {
    subjects = await subjectCounts(jsm, DELIVERY_STREAM, `${ROOT}.>`);
  } catch (error) {
    if (error instanceof JetStreamApiError && error.status === 404) return [];
    throw error;
  }
  const queued: QueuedTexts[] = [];
  for (const [subject, texts] of Object.entries(subjects)) {
    const account = accountOf(subject);
    if (account !== undefined && texts > 0) queued.push({ account, texts });
  }
  return queued.sort((a, b) => a.account.localeCompare(b.account));
}

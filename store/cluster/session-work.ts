import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { validateDraft, type EventData } from '../../bus/index.js';
import { consumeInOrder, IN_FLIGHT, type OrderedConsumer } from './in-order.js';
import { openWorkQueue } from './work-queue-stream.js';
import { idToken } from './subjects.js';

/** An inbound message the account's holder accepted, for the member serving its session. */
export type SessionWorkItem = EventData<'message.received'>;

/** How long a message handed to a partition's member may stay unacknowledged before it is handed again. */
const ACK_WAIT_MS = 10_000;
const PUBLISH_TIMEOUT_MS = 5_000;

const safe = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_');
const streamOf = (account: string): string => `TERN_WORK_${safe(account)}`;
const rootOf = (account: string): string => `tern.work.${safe(account)}`;

/** The partition a session belongs to: FNV-1a of its key, so every member computes the same one. */
export function partitionOf(sessionKey: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(sessionKey, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % partitions;
}

/**
 * One channel account's inbound messages on their way to the sessions (#40): JetStream work-queue stream
 * `TERN_WORK_<account>`, subject `tern.work.<account>.<partition>.<session>`. The member holding the account publishes
 * each message it accepted (with `Nats-Msg-Id` = the message's id, so a retried publish is queued once); the member
 * holding a partition's lease takes that partition's messages in order, one at a time, and acknowledges each once its
 * own log has it, so a member that dies first leaves it to the partition's next holder.
 */
export class SessionWork {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    readonly account: string,
  ) {}

  /** Opens the account's stream, creating it if absent (members starting at once: all but one find it made). */
  static async open(nc: NatsConnection, account: string): Promise<SessionWork> {
    await openWorkQueue(nc, { name: streamOf(account), subjects: [`${rootOf(account)}.>`] });
    return new SessionWork(nc, jetstream(nc), account);
  }

  /** Queues a message for its session's partition; resolves once the stream holds it. */
  async publish(partition: number, session: string, message: SessionWorkItem): Promise<void> {
    await this.js.publish(`${rootOf(this.account)}.${partition}.${idToken(session)}`, JSON.stringify(message), {
      msgID: `${this.account}:${message.message_id}`,
      timeout: PUBLISH_TIMEOUT_MS,
    });
  }

  /**
   * Takes one partition's messages in order (`consumeInOrder`): `handle` resolves once the message is in the
   * partition's log, and only then is it acknowledged. One that does not parse is dropped (`invalid`); one whose
   * `handle` throws is handed again after a second.
   */
  async consume(
    partition: number,
    handle: (message: SessionWorkItem) => Promise<void>,
    invalid: (reason: string) => void,
  ): Promise<OrderedConsumer> {
    const jsm = await jetstreamManager(this.nc);
    const stream = streamOf(this.account);
    const name = `part-${partition}`;
    await jsm.consumers.add(stream, {
      durable_name: name,
      filter_subject: `${rootOf(this.account)}.${partition}.>`,
      deliver_policy: DeliverPolicy.All,
      ack_policy: AckPolicy.Explicit,
      ack_wait: ACK_WAIT_MS * 1_000_000,
      // Acknowledged in log order, so a message handed again (its member died) has no later one taken before it.
      max_ack_pending: IN_FLIGHT,
      max_deliver: -1,
    });
    return consumeInOrder(this.js, stream, name, {
      parse: (message) => validateDraft({ type: 'message.received', data: message.json() }).data,
      handle,
      invalid,
    });
  }
}

import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';

/** How many messages a consumer takes before the first of them is acknowledged. */
export const IN_FLIGHT = 128;

/**
 * Runs `take` for each message in the order they arrive without waiting for one to finish before the next starts:
 * `take` does what must happen in order (publishing to the log) before its first wait, then waits for the log and
 * acknowledges. At most `IN_FLIGHT` are open at once; ends when the messages do, once every `take` has.
 */
export async function takeInOrder(messages: ConsumerMessages, take: (message: JsMsg) => Promise<void>): Promise<void> {
  const open = new Set<Promise<void>>();
  try {
    for await (const message of messages) {
      const taken = take(message).catch(() => undefined);
      open.add(taken);
      void taken.finally(() => open.delete(taken));
      if (open.size >= IN_FLIGHT) await Promise.race(open);
    }
  } catch {
    // The consumer ended with the connection; what was not acknowledged is handed out again.
  }
  await Promise.all(open);
}

export interface OrderedConsumer {
  /** Stops taking messages; one being handled finishes (and is acknowledged) first. */
  stop(): Promise<void>;
}

/** What `consumeInOrder` does with each message of a durable consumer. */
export interface InOrderHandlers<T> {
  /** Reads a message's item; throws for one that is not valid. */
  parse: (message: JsMsg) => T;
  /** Resolves once the item is in the taker's log. */
  handle: (item: T) => Promise<void>;
  /** Told why a message was dropped (`parse` threw). */
  invalid: (reason: string) => void;
}

/**
 * Takes durable consumer `name` of `stream` in order (`takeInOrder`): a message is acknowledged only once `handle`
 * resolved, so a taker that dies first leaves it to the next; one that does not parse is dropped (`term`), one whose
 * `handle` throws is handed again after a second, one that comes after the stop is handed back at once.
 */
export async function consumeInOrder<T>(
  js: JetStreamClient,
  stream: string,
  name: string,
  { parse, handle, invalid }: InOrderHandlers<T>,
): Promise<OrderedConsumer> {
  const consumer = await js.consumers.get(stream, name);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: IN_FLIGHT, expires: 5_000 });
  let stopped = false;
  const take = async (message: JsMsg): Promise<void> => {
    if (stopped) return message.nak();
    let item: T;
    try {
      item = parse(message);
    } catch (error) {
      invalid((error as Error).message);
      return message.term();
    }
    try {
      await handle(item);
      message.ack();
    } catch {
      message.nak(1_000);
    }
  };
  const loop = takeInOrder(messages, take);
  return {
    stop: async () => {
      stopped = true;
      await messages.close().catch(() => undefined);
      await loop;
    },
  };
}

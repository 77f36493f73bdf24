import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';

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

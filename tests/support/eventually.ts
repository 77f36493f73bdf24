import { isDeepStrictEqual } from 'node:util';

/**
 * Reads until `read()` gives `expected` or `limitMs` passed, and returns the last value read for the test to assert.
 * For changes signalled by the system (`fs.watch`), which arrive in a later turn of the event loop.
 */
export async function eventually<T>(read: () => T, expected: T, limitMs = 10_000): Promise<T> {
  const end = Date.now() + limitMs;
  let value = read();
  while (!isDeepStrictEqual(value, expected) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    value = read();
  }
  return value;
}

/** Runs `check` until it stops throwing or `limitMs` passed; then throws its last error. */
export async function passes(check: () => void | Promise<void>, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > end) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * Polls `check` until it answers something other than undefined; fails after `timeoutMs` saying what `seen` last said.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  seen?: () => unknown,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(
        `${what} did not happen within ${timeoutMs} ms${seen ? `; last seen: ${JSON.stringify(await seen())}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until `read()` holds `count` items or more (what a bot has sent so far) and returns them; fails after
 * `timeoutMs` with what it holds, as `shown` shows it.
 */
export async function atLeast<T>(
  read: () => T[],
  count: number,
  shown: (items: T[]) => unknown,
  timeoutMs = 60_000,
): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  while (read().length < count) {
    if (Date.now() > deadline)
      throw new Error(`expected ${count} messages from the bot, got ${JSON.stringify(shown(read()))}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return read();
}

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

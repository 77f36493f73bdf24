/** Enough of a key to tell two apart in a message, never enough to use it. */
export function maskKey(key: string): string {
  return key.length <= 12 ? `…${key.slice(-2)}` : `${key.slice(0, 3)}…${key.slice(-4)}`;
}

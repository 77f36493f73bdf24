import { formatPath } from './problems.js';
import { isSecret } from './secret.js';

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isSecret(value);
}

/**
 * Keys the schema does not know (except `_comment…`) (a newer or a peer runtime's blocks such as `hooks` or `devices`): they
 * were dropped while parsing, so comparing the input with the parsed config finds them all.
 */
export function unknownKeys(input: unknown, parsed: unknown, path: (string | number)[] = []): string[] {
  if (Array.isArray(input) && Array.isArray(parsed)) {
    return input.flatMap((item, i) => unknownKeys(item, parsed[i], [...path, i]));
  }
  if (!isPlain(input) || !isPlain(parsed)) return [];
  return Object.entries(input).flatMap(([key, value]) => {
    if (key in parsed) return unknownKeys(value, parsed[key], [...path, key]);
    // `_comment` keys are how JSON files (the peer runtime's example among them) carry comments.
    return key.startsWith('_comment') ? [] : [formatPath([...path, key])];
  });
}

import { posix } from 'node:path';

/**
 * The path a request really names: percent-decoded, backslashes as slashes, dot segments and repeated slashes
 * resolved. `canonical` is false when that differs from the path as sent, which only path tricks produce.
 */
export type PathCheck = { kind: 'valid'; path: string; canonical: boolean } | { kind: 'malformed' };

export function checkPath(url: string): PathCheck {
  const raw = url.split('?', 1)[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { kind: 'malformed' };
  }
  if (decoded.includes('\0')) return { kind: 'malformed' };
  const path = posix.normalize(`/${decoded.replace(/\\/g, '/')}`);
  return { kind: 'valid', path, canonical: path === raw };
}

/** `/api` and everything under it, in any letter case, since express routes match regardless of case. */
export function isApiPath(path: string): boolean {
  const lower = path.toLowerCase();
  return lower === '/api' || lower.startsWith('/api/');
}

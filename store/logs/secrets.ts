import { isSecret } from '../config/index.js';

/** Every secret value in a config (or any object), revealed, for masking them out of log lines. */
export function secretValues(value: unknown, found: Set<string> = new Set()): string[] {
  if (isSecret(value)) {
    if (!value.isEmpty) found.add(value.reveal());
  } else if (Array.isArray(value)) {
    value.forEach((item) => secretValues(item, found));
  } else if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach((item) => secretValues(item, found));
  }
  return [...found];
}

/** Replaces each known secret in a line with its masked form; longest first, so no secret is half-masked. */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  const masked = (v: string): string => (v.length < 12 ? '****' : `${v.slice(0, 4)}…${v.slice(-2)}`);
  return [...secrets].sort((a, b) => b.length - a.length).reduce((text, secret) => text.split(secret).join(masked(secret)), line);
}

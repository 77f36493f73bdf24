import { Secret } from '../config/index.js';

/** Replaces each known secret in a line with its masked form; longest first, so no secret is half-masked. */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  return [...secrets].sort((a, b) => b.length - a.length).reduce((text, secret) => text.split(secret).join(new Secret(secret).masked), line);
}

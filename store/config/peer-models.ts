import { formatPath } from './problems.js';
import { isRecord, type RawObject } from './raw.js';

/** The peer runtime's sign-in methods that need its own OAuth flows (`auth_method`), which Tern does not have. */
export const OAUTH_METHODS: ReadonlySet<string> = new Set(['oauth', 'token']);

/**
 * A `model_list` entry that signs in with the peer runtime's OAuth cannot run here: it is switched off with a
 * warning, so the rest of the config loads and the entry is kept for when it gets keys.
 */
export function applyPeerModels(raw: RawObject, warnings: string[]): void {
  if (!Array.isArray(raw.model_list)) return;
  raw.model_list.forEach((entry, i) => {
    if (!isRecord(entry) || typeof entry.auth_method !== 'string' || !OAUTH_METHODS.has(entry.auth_method)) return;
    entry.enabled = false;
    const name = typeof entry.model_name === 'string' ? ` (${entry.model_name})` : '';
    warnings.push(
      `${formatPath(['model_list', i])}${name} signs in with auth_method "${entry.auth_method}", which Tern does not do: the entry is switched off (remove auth_method and give it api_keys to use it)`,
    );
  });
}

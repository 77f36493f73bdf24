import { formatPath } from './problems.js';
import { isRecord, type RawObject } from './raw.js';

/** The peer runtime's sign-in methods that need its own OAuth flows (`auth_method`). */
export const OAUTH_METHODS: ReadonlySet<string> = new Set(['oauth', 'token']);
/** The providers whose sign-in Tern does itself (`tern auth login --provider …`). */
const SIGNED_IN_PROVIDERS: ReadonlySet<string> = new Set(['antigravity', 'google-antigravity', 'github-copilot']);

/** The entry's provider: `provider`, else the first segment of `model` (`antigravity/gemini-3-flash`). */
function providerOf(entry: RawObject): string | undefined {
  if (typeof entry.provider === 'string' && entry.provider !== '') return entry.provider;
  return typeof entry.model === 'string' && entry.model.includes('/') ? entry.model.split('/')[0] : undefined;
}

/** An OAuth entry of a provider Tern cannot sign in to. */
export function unsupportedOauth(entry: RawObject): boolean {
  if (typeof entry.auth_method !== 'string' || !OAUTH_METHODS.has(entry.auth_method)) return false;
  return !SIGNED_IN_PROVIDERS.has(providerOf(entry) ?? '');
}

/**
 * A `model_list` entry that signs in with the peer runtime's OAuth to a vendor other than antigravity or
 * github-copilot cannot run here: it is switched off with a warning, so the rest of the config loads and the entry is
 * kept for when it gets keys.
 */
export function applyPeerModels(raw: RawObject, warnings: string[]): void {
  if (!Array.isArray(raw.model_list)) return;
  raw.model_list.forEach((entry, i) => {
    if (!isRecord(entry) || !unsupportedOauth(entry)) return;
    entry.enabled = false;
    const name = typeof entry.model_name === 'string' ? ` (${entry.model_name})` : '';
    warnings.push(
      `${formatPath(['model_list', i])}${name} signs in with auth_method ` +
        `"${entry.auth_method}", which Tern does not do for this provider: the ` +
        `entry is switched off (remove auth_method and give it api_keys to use it)`,
    );
  });
}

import { knownProviders } from '../../adapters/providers/catalogue.js';
import { ProviderConfigError } from '../../adapters/providers/errors.js';
import type { ModelEntry } from '../../adapters/providers/model-entry.js';
import { resolveModelEntry } from '../../adapters/providers/resolve.js';
import type { Config } from '../../store/config/index.js';
import { unsupportedOauth } from '../../store/config/peer-models.js';

/** `model_list` as the provider router takes it: the only place keys are revealed, to be sent to the vendor. */
export function modelEntries(config: Config): ModelEntry[] {
  return config.model_list.map((entry) => ({
    model_name: entry.model_name,
    provider: entry.provider,
    model: entry.model,
    api_base: entry.api_base,
    api_keys: entry.api_keys.map((key) => key.reveal()),
    enabled: entry.enabled,
    streaming: { enabled: entry.streaming.enabled },
    extra_body: entry.extra_body,
    proxy: entry.proxy,
    request_timeout: entry.request_timeout,
    max_response_bytes: entry.max_response_bytes,
    thinking_level: entry.thinking_level,
    connect_mode: entry.connect_mode,
  }));
}

/** What the provider layer says about the well-typed entries of a raw `model_list`. */
export interface ModelListCheck {
  problems: string[];
  warnings: string[];
}

/**
 * What the provider layer cannot use in a raw `model_list` (an unknown provider, a `custom` entry without
 * `api_base`), as config problems: `model_list[<i>].<field>: message (allowed: …)`. Entries of the wrong shape are
 * left to the schema, which names them; about a switched-off entry it only warns (one the loader switched off for
 * its OAuth sign-in has been warned about already).
 */
export function modelListCheck(raw: Record<string, unknown>): ModelListCheck {
  const found: ModelListCheck = { problems: [], warnings: [] };
  const entries = Array.isArray(raw.model_list) ? raw.model_list : [];
  entries.forEach((value, index) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const entry = value as Record<string, unknown>;
    if (typeof entry.model_name !== 'string' || typeof entry.model !== 'string') return;
    if (unsupportedOauth(entry)) return;
    const problem = entryProblem(entry, `model_list[${index}]`);
    if (problem === undefined) return;
    if (entry.enabled === false) found.warnings.push(`${problem} (the entry is switched off)`);
    else found.problems.push(problem);
  });
  return found;
}

function entryProblem(entry: Record<string, unknown>, label: string): string | undefined {
  try {
    resolveModelEntry({
      model_name: entry.model_name as string,
      model: entry.model as string,
      ...(typeof entry.provider === 'string' && entry.provider !== '' ? { provider: entry.provider } : {}),
      ...(typeof entry.api_base === 'string' && entry.api_base !== '' ? { api_base: entry.api_base } : {}),
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof ProviderConfigError)) throw error;
    const allowed = error.field === 'provider' ? ` (allowed: ${knownProviders.join(', ')})` : '';
    const detail = error.message.replace(/^model entry [^:]*: /, '').replace(/; known providers: .*$/, '');
    return `${label}.${error.field}: ${detail}${allowed}`;
  }
}

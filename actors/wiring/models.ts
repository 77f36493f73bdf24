import { knownProviders } from '../../adapters/providers/catalogue.js';
import { ProviderConfigError } from '../../adapters/providers/errors.js';
import type { ModelEntry } from '../../adapters/providers/model-entry.js';
import { resolveModelEntry } from '../../adapters/providers/resolve.js';
import type { Config } from '../../store/config/index.js';

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
  }));
}

/**
 * What the provider layer cannot use in `model_list` (an unknown provider, a `custom` entry without
 * `api_base`), as config problems: `model_list.<i>.<field>: message (allowed: …)`.
 */
export function modelListProblems(config: Config): string[] {
  return modelEntries(config).flatMap((entry, index) => {
    try {
      resolveModelEntry(entry);
      return [];
    } catch (error) {
      if (!(error instanceof ProviderConfigError)) throw error;
      const allowed = error.field === 'provider' ? ` (allowed: ${knownProviders.join(', ')})` : '';
      const detail = error.message.replace(/^model entry [^:]*: /, '').replace(/; known providers: .*$/, '');
      return [`model_list.${index}.${error.field}: ${detail}${allowed}`];
    }
  });
}

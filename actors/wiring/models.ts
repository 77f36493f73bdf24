import type { ModelEntry } from '../../adapters/providers/model-entry.js';
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
  }));
}

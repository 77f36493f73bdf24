import { Redactor } from '../../../store/config/index.js';
import type { FilterOptions } from '../options.js';

const redactors = new WeakMap<readonly string[], Redactor>();

/**
 * Tool output through Tern's one redaction (`Redactor`) before the model reads it: configured secrets print
 * masked (`sk-a…f9`), other well-known key shapes `[REDACTED]`. Short results are left alone (`filter_min_length`),
 * and `filter_sensitive_data: false` turns it off for tool output only (events and logs are masked regardless).
 */
export function filterSecrets(text: string, options: Pick<FilterOptions, 'enabled' | 'minLength' | 'secrets'>): string {
  if (!options.enabled || text.length < options.minLength) return text;
  let redactor = redactors.get(options.secrets);
  if (!redactor) {
    redactor = new Redactor(options.secrets);
    redactors.set(options.secrets, redactor);
  }
  return redactor.text(text);
}

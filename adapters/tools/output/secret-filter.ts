import type { FilterOptions } from '../options.js';

export const REDACTED = '[REDACTED]';

/** Shapes of well-known credentials, masked even when the runtime was never told the value. */
const KEY_SHAPES: RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{20,}/g,
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Masks known secret values and common key shapes. Short results are left alone (`filter_min_length`). */
export function filterSecrets(text: string, options: Pick<FilterOptions, 'enabled' | 'minLength' | 'secrets'>): string {
  if (!options.enabled || text.length < options.minLength) return text;
  let out = text;
  const known = options.secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  for (const secret of known) out = out.replace(new RegExp(escapeRegExp(secret), 'g'), REDACTED);
  for (const shape of KEY_SHAPES) out = out.replace(shape, (_match, prefix: unknown) => (typeof prefix === 'string' ? prefix + REDACTED : REDACTED));
  return out;
}

import { existsSync } from 'node:fs';
import { validateConfig, type Config } from '../../../store/config/index.js';
import { readText } from '../../../store/config/files.js';
import { pricesOf, type PriceOf } from '../../../store/usage/prices.js';

/** The saved config (prices, budgets); none while it is missing or does not parse: no prices, no budgets. */
export function savedConfig(path: string): Config | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const validation = validateConfig(JSON.parse(readText(path)) as unknown);
    return validation.ok ? validation.config : undefined;
  } catch {
    return undefined;
  }
}

/** The price of each model as the saved config sets it (read per request, so an edited price applies at once). */
export function savedPrices(path: string): PriceOf {
  const config = savedConfig(path);
  return config ? pricesOf(config) : () => undefined;
}

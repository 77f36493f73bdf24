import type { Config } from './schema/index.js';
import { maskUrlPassword } from './url-credentials.js';

/**
 * The config as plain JSON with every secret masked: for `config show`, logs and the dashboard. Keys print as their
 * masks; a password inside a URL (a proxy's, a cluster server's) is masked wherever it is written.
 */
export function maskedConfig(config: Config): unknown {
  return JSON.parse(
    JSON.stringify(config, (_key, value: unknown) => (typeof value === 'string' ? maskUrlPassword(value) : value)),
  ) as unknown;
}

import type { Config } from './schema/index.js';

/** The config as plain JSON with every secret masked: for `config show`, logs and the dashboard. */
export function maskedConfig(config: Config): unknown {
  return JSON.parse(JSON.stringify(config)) as unknown;
}

import * as z from 'zod/mini';
import { bool, int, oneOf, text } from './fields.js';
import { withDefault } from './shared.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;

export const gatewaySchema = z.object({
  host: withDefault(text().check(z.describe("Address the gateway's health server listens on")), '127.0.0.1'),
  port: withDefault(int(1, 65535).check(z.describe("Port of the gateway's health server (/health, /ready)")), 18790),
  log_level: withDefault(oneOf(LOG_LEVELS).check(z.describe('Least severe level written to logs/gateway.log')), 'warn'),
  log_max_size_mb: withDefault(int(1, 1024).check(z.describe('Size in MB at which the gateway log is rotated')), 2),
  log_max_backups: withDefault(int(0, 100).check(z.describe('Rotated gateway logs kept')), 3),
  /** Edits of the config and credentials files apply while running; false (the peer runtime's default): at restart. */
  hot_reload: withDefault(bool().check(z.describe('Apply edits of the config while running; false: at restart')), true),
});

import * as z from 'zod/mini';
import { bool, int, oneOf, text } from './fields.js';
import { withDefault } from './shared.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;

export const gatewaySchema = z.object({
  host: withDefault(text(), '127.0.0.1'),
  port: withDefault(int(1, 65535), 18790),
  log_level: withDefault(oneOf(LOG_LEVELS), 'warn'),
  log_max_size_mb: withDefault(int(1, 1024), 2),
  log_max_backups: withDefault(int(0, 100), 3),
  /** Edits of the config and credentials files apply while running; false (the peer runtime's default): at restart. */
  hot_reload: withDefault(bool(), true),
});

import { z } from 'zod';
import { int, oneOf, text } from './fields.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'] as const;

export const gatewaySchema = z.object({
  host: text().default('127.0.0.1'),
  port: int(1, 65535).default(18790),
  log_level: oneOf(LOG_LEVELS).default('warn'),
  log_max_size_mb: int(1, 1024).default(2),
  log_max_backups: int(0, 100).default(3),
});

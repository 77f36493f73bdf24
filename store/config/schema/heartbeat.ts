import * as z from 'zod/mini';
import { bool, int } from './fields.js';
import { withDefault } from './shared.js';

export const heartbeatSchema = z.object({
  enabled: withDefault(bool(), true),
  /** Minutes. */
  interval: withDefault(int(5), 30),
});

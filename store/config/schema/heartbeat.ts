import { z } from 'zod';
import { bool, int } from './fields.js';

export const heartbeatSchema = z.object({
  enabled: bool().default(true),
  /** Minutes. */
  interval: int(5).default(30),
});

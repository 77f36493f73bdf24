import { z } from 'zod';
import { bool, int } from './fields.js';

export const powerSchema = z.object({
  low_power: bool().default(false),
  /** Minutes; a larger normal `heartbeat.interval` wins. */
  low_power_heartbeat_interval: int(5).default(120),
  /** Multiplies maintenance intervals such as the 2 s config-file check. */
  poll_interval_multiplier: int(1).default(1),
});

import * as z from 'zod/mini';
import { bool, int } from './fields.js';
import { withDefault } from './shared.js';

export const powerSchema = z.object({
  low_power: withDefault(bool(), false),
  /** Minutes; a larger normal `heartbeat.interval` wins. */
  low_power_heartbeat_interval: withDefault(int(5), 120),
  /** Multiplies maintenance intervals such as the 2 s config-file check. */
  poll_interval_multiplier: withDefault(int(1), 1),
});

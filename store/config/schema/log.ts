import * as z from 'zod/mini';
import { int } from './fields.js';
import { withDefault } from './shared.js';

/**
 * How long the event log keeps events in its database (`tern log compact`): older ones move to compressed files under
 * `sessions/archive/`. Every session's latest checkpoint and the history after it are kept whatever their age.
 */
export const logSchema = z.object({
  retention: z.prefault(
    z.object({
      /** Days; events older than this are archived. */
      max_age_days: withDefault(int(1), 90),
      /** MB the log may hold after a compaction; the oldest events are archived first. Unset: no limit. */
      max_size_mb: z.optional(int(1)),
      /** Hours between the compactions the gateway runs on its own (0: none; `tern log compact` still works). */
      compact_every_hours: withDefault(int(0), 24),
    }),
    {},
  ),
});

import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

export const logEvents = {
  /**
   * `tern log compact`: events older than the retention moved out of the log's database into `archive` (a gzip of
   * JSON lines under `sessions/archive/`); `kept` events stayed.
   */
  'log.compacted': lazySchema(() =>
    z.object({
      archived: z.number().int().nonnegative(),
      kept: z.number().int().nonnegative(),
      archive: z.string().optional(),
    }),
  ),
  /**
   * `tern log forget --sender ID`: every event of that sender's messages and of the turns they started was removed
   * from the log (and from no archive: they are not archived). Projections built from the log (a memory index) drop
   * what they hold of those turns when they see this event.
   */
  'data.forgotten': lazySchema(() =>
    z.object({
      sender: z.string(),
      removed: z.number().int().nonnegative(),
      turns: z.array(z.string()),
      messages: z.array(z.string()),
    }),
  ),
  /**
   * `tern log import FILE`: `imported` events of an archive were put back in the log at their own seq; `skipped` were
   * there already (an import is idempotent).
   */
  'log.imported': lazySchema(() =>
    z.object({
      file: z.string(),
      imported: z.number().int().nonnegative(),
      skipped: z.number().int().nonnegative(),
    }),
  ),
} as const;

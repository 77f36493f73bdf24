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
      /** The log's tables in bytes before and after (a compaction the gateway ran on its schedule records them). */
      bytes_before: z.number().int().nonnegative().optional(),
      bytes_after: z.number().int().nonnegative().optional(),
    }),
  ),
  /**
   * Usage of archived model answers, summed by hour × agent × session × model, so totals survive pruning: `tern usage`
   * reads these with the answers still in the log. A compaction merges the log's rollups into one, placed at the seq of
   * the last answer it folds; `through` is that seq (an import skips the answers it covers).
   */
  'usage.rolled_up': lazySchema(() =>
    z.object({
      through: z.number().int().nonnegative(),
      buckets: z.array(
        z.object({
          /** The hour's start, epoch ms. */
          hour: z.number().int(),
          agent: z.string(),
          session: z.string(),
          model_name: z.string(),
          calls: z.number().int().nonnegative(),
          /** Turns with an answer in this bucket. */
          turns: z.number().int().nonnegative(),
          unreported_calls: z.number().int().nonnegative(),
          input: z.number().nonnegative(),
          output: z.number().nonnegative(),
          cached: z.number().nonnegative(),
          cache_write: z.number().nonnegative(),
          reasoning: z.number().nonnegative(),
        }),
      ),
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

import * as z from 'zod/mini';
import { bool, clockTime, int, list, oneOf, text } from './fields.js';
import { withDefault } from './shared.js';

export const evolutionSchema = z.object({
  enabled: withDefault(bool(), false),
  mode: withDefault(oneOf(['observe', 'draft', 'apply']), 'observe'),
  state_dir: withDefault(text(), ''),
  min_task_count: withDefault(int(1), 2),
  min_success_ratio: withDefault(
    z
      .number({ error: (issue) => `${String(issue.input)} is not a number (allowed: greater than 0, at most 1)` })
      .check(
        z.gt(0, { error: (issue) => `${String(issue.input)} is out of range (allowed: greater than 0, at most 1)` }),
        z.lte(1, { error: (issue) => `${String(issue.input)} is out of range (allowed: greater than 0, at most 1)` }),
      ),
    0.7,
  ),
  cold_path_trigger: withDefault(oneOf(['after_turn', 'scheduled', 'manual']), 'after_turn'),
  cold_path_times: withDefault(list(clockTime()), []),
});

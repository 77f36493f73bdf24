import { z } from 'zod';
import { bool, clockTime, int, list, oneOf, text } from './fields.js';

export const evolutionSchema = z.object({
  enabled: bool().default(false),
  mode: oneOf(['observe', 'draft', 'apply']).default('observe'),
  state_dir: text().default(''),
  min_task_count: int(1).default(2),
  min_success_ratio: z
    .number({ error: (issue) => `${String(issue.input)} is not a number (allowed: greater than 0, at most 1)` })
    .gt(0, { error: (issue) => `${String(issue.input)} is out of range (allowed: greater than 0, at most 1)` })
    .lte(1, { error: (issue) => `${String(issue.input)} is out of range (allowed: greater than 0, at most 1)` })
    .default(0.7),
  cold_path_trigger: oneOf(['after_turn', 'scheduled', 'manual']).default('after_turn'),
  cold_path_times: list(clockTime()).default([]),
});

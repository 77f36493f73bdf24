import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

const budgetFact = () =>
  z.object({
    period: z.enum(['daily', 'monthly']),
    /** The period it concerns, in local time: `2026-11-26` or `2026-11`. */
    span: z.string(),
    limit_usd: z.number().nonnegative(),
    spent_usd: z.number().nonnegative(),
  });

export const budgetEvents = {
  /** An agent has spent 80% of a budget; said once per agent, budget and period. */
  'budget.warned': lazySchema(budgetFact),
  /** A message arrived for an agent whose budget is spent: no turn started. */
  'budget.reached': lazySchema(budgetFact),
} as const;

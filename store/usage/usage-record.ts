import type { Tokens } from './prices.js';

/** One answer of a model: who asked, which model answered, and its tokens. */
export interface UsageRecord {
  seq: number;
  at: number;
  agent: string;
  session: string;
  turn: string;
  model_name: string;
  tokens: Tokens;
  /** The answer came without usage figures: its tokens (zero here) and cost are unknown, not 0. */
  unreported?: true;
  /** A bucket of a `usage.rolled_up` event standing for this many answers (`turn` is empty): see `rollup.ts`. */
  rollup?: RolledCounts;
}

export interface RolledCounts {
  calls: number;
  turns: number;
  unreported_calls: number;
}

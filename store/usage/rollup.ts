import type { EventData } from '../../bus/index.js';
import type { Tokens } from './prices.js';
import type { UsageRecord } from './usage-record.js';

export type RolledUp = EventData<'usage.rolled_up'>;
type Bucket = RolledUp['buckets'][number];

const HOUR_MS = 3_600_000;
const TOKEN_FIELDS = ['input', 'output', 'cached', 'cache_write', 'reasoning'] as const;

/**
 * Model answers summed by hour × agent × session × model: every way `tern usage` groups (day and hour in any time zone
 * a whole number of hours from UTC) reads the same from these as from the answers. A turn is counted once per bucket
 * it has answers in.
 */
export class UsageRollup {
  private readonly buckets = new Map<string, { bucket: Bucket; turns: Set<string> | undefined }>();

  /** Adds a record to its bucket, or with `sign` -1 takes it out again (`tern log import` brings answers back). */
  add(record: UsageRecord, sign: 1 | -1 = 1): void {
    const hour = record.at - (((record.at % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const entry = this.entry(hour, record.agent, record.session, record.model_name);
    entry.turns ??= new Set();
    const { bucket } = entry;
    if (record.rollup) {
      bucket.turns += sign * record.rollup.turns;
      bucket.calls += sign * record.rollup.calls;
      bucket.unreported_calls += sign * record.rollup.unreported_calls;
    } else {
      if (!entry.turns.has(record.turn)) bucket.turns += sign;
      entry.turns.add(record.turn);
      bucket.calls += sign;
      if (record.unreported) bucket.unreported_calls += sign;
    }
    for (const field of TOKEN_FIELDS) bucket[field] += sign * record.tokens[field];
  }

  get size(): number {
    return this.buckets.size;
  }

  data(through: number): RolledUp {
    const buckets = [...this.buckets.values()].map((entry) => entry.bucket).filter((bucket) => bucket.calls > 0);
    buckets.sort((a, b) => a.hour - b.hour || a.session.localeCompare(b.session));
    return { through, buckets };
  }

  private entry(hour: number, agent: string, session: string, model: string) {
    const key = JSON.stringify([hour, agent, session, model]);
    let entry = this.buckets.get(key);
    if (!entry) {
      const bucket: Bucket = {
        hour,
        agent,
        session,
        model_name: model,
        calls: 0,
        turns: 0,
        unreported_calls: 0,
        input: 0,
        output: 0,
        cached: 0,
        cache_write: 0,
        reasoning: 0,
      };
      entry = { bucket, turns: undefined };
      this.buckets.set(key, entry);
    }
    return entry;
  }
}

/** A rollup event's buckets as usage records (each standing for its calls), for the readers of usage. */
export function* rolledRecords(seq: number, data: RolledUp): Generator<UsageRecord> {
  for (const bucket of data.buckets) {
    const tokens: Tokens = {
      input: bucket.input,
      output: bucket.output,
      cached: bucket.cached,
      cache_write: bucket.cache_write,
      reasoning: bucket.reasoning,
    };
    yield {
      seq,
      at: bucket.hour,
      agent: bucket.agent,
      session: bucket.session,
      turn: '',
      model_name: bucket.model_name,
      tokens,
      rollup: { calls: bucket.calls, turns: bucket.turns, unreported_calls: bucket.unreported_calls },
    };
  }
}

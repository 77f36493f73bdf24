import type { TurnUsageView, UsageRowView } from '../../bus/api-shapes.js';
import type { Envelope, Usage } from '../../bus/index.js';
import type { EventStore } from '../log/event-store.js';
import { costOf, roundUsd, type PriceOf, type Tokens } from './prices.js';
import { rolledRecords, type RolledUp } from './rollup.js';
import type { UsageRecord } from './usage-record.js';

export type { RolledCounts, UsageRecord } from './usage-record.js';

/** The events usage is folded from, each read through the type index. */
export const USAGE_TYPES = ['provider.requested', 'provider.responded'] as const;

const UNKNOWN = '(unknown)';

/** An answer's reported usage as tokens; a vendor that reports none counts zero. */
export function tokensOf(usage: Usage | undefined): Tokens {
  return {
    input: usage?.input_tokens ?? 0,
    output: usage?.output_tokens ?? 0,
    cached: usage?.cached_input_tokens ?? 0,
    cache_write: usage?.cache_write_input_tokens ?? 0,
    reasoning: usage?.reasoning_tokens ?? 0,
  };
}

/**
 * Folds model calls into usage records: `provider.requested` names the model of a call, the `provider.responded`
 * of the same turn and iteration carries its usage. A call without usage (a vendor that sends none) counts zero tokens.
 */
export class UsageFold {
  private readonly asked = new Map<string, string>();

  apply(event: Envelope): UsageRecord | undefined {
    const call =
      `${event.turn ?? ''}#` +
      `${event.type === 'provider.requested' || event.type === 'provider.responded' ? event.data.iteration : ''}`;
    if (event.type === 'provider.requested') {
      this.asked.set(call, event.data.model_name);
      return undefined;
    }
    if (event.type !== 'provider.responded') return undefined;
    const model = this.asked.get(call) ?? UNKNOWN;
    this.asked.delete(call);
    return {
      seq: event.seq,
      at: event.at,
      agent: event.agent ?? UNKNOWN,
      session: event.session ?? UNKNOWN,
      turn: event.turn ?? UNKNOWN,
      model_name: model,
      tokens: tokensOf(event.data.usage),
      ...(event.data.usage ? {} : { unreported: true as const }),
    };
  }
}

export const noTokens = (): Tokens => ({ input: 0, output: 0, cached: 0, cache_write: 0, reasoning: 0 });

export function addTokens(sum: Tokens, tokens: Tokens): void {
  sum.input += tokens.input;
  sum.output += tokens.output;
  sum.cached += tokens.cached;
  sum.cache_write += tokens.cache_write;
  sum.reasoning += tokens.reasoning;
}

/** What a tally prices to: its answers, their tokens, the cost of the priced ones, how many had no price. */
export interface PricedTally {
  calls: number;
  tokens: Tokens;
  cost_usd: number;
  unpriced_calls: number;
  /** Answers that came without usage figures: their tokens and cost are unknown. */
  unreported_calls: number;
}

/**
 * Answers and tokens by model (of a session, say), priced only when read, so a price edited in the config applies
 * to what was recorded before.
 */
export class ModelTally {
  private readonly byModel = new Map<string, { calls: number; tokens: Tokens }>();
  private unreported = 0;

  add(record: Pick<UsageRecord, 'model_name' | 'tokens' | 'unreported' | 'rollup'>): void {
    const sum = this.byModel.get(record.model_name) ?? { calls: 0, tokens: noTokens() };
    sum.calls += record.rollup?.calls ?? 1;
    this.unreported += record.rollup?.unreported_calls ?? (record.unreported ? 1 : 0);
    addTokens(sum.tokens, record.tokens);
    this.byModel.set(record.model_name, sum);
  }

  priced(priceOf: PriceOf): PricedTally {
    const out: PricedTally = {
      calls: 0,
      tokens: noTokens(),
      cost_usd: 0,
      unpriced_calls: 0,
      unreported_calls: this.unreported,
    };
    for (const [model, sum] of this.byModel) {
      out.calls += sum.calls;
      addTokens(out.tokens, sum.tokens);
      const price = priceOf(model);
      if (price) out.cost_usd += costOf(sum.tokens, price);
      else out.unpriced_calls += sum.calls;
    }
    out.cost_usd = roundUsd(out.cost_usd);
    return out;
  }
}

export interface UsageQuery {
  /** Only answers at or after this time (epoch ms). */
  since?: number;
  /** Only events after this `seq` (to read on from where a fold stopped). */
  after?: number;
  /** Only events up to this `seq`. */
  through?: number;
  turn?: string;
}

/** The events of the usage types in `seq` order, each type read through its index. */
export function* usageEvents(log: EventStore, query: UsageQuery): Generator<Envelope> {
  const bounds = {
    ...(query.after !== undefined ? { after: query.after } : {}),
    ...(query.through !== undefined ? { before: query.through + 1 } : {}),
  };
  if (query.turn !== undefined) {
    yield* log.iterate({ turn: query.turn, type: 'provider.*', ...bounds });
    return;
  }
  const [requested, responded] = USAGE_TYPES.map((type) => log.iterate({ type, ...bounds })[Symbol.iterator]());
  let a = requested!.next();
  let b = responded!.next();
  while (!a.done || !b.done) {
    if (b.done || (!a.done && a.value.seq < b.value.seq)) {
      yield a.value;
      a = requested!.next();
    } else {
      yield b.value;
      b = responded!.next();
    }
  }
}

/**
 * Every usage record of the log (or of one turn), oldest first: the rollups of archived answers (`usage.rolled_up`,
 * never a turn's) first, then the answers the log holds.
 */
export function* readUsage(log: EventStore, query: UsageQuery = {}, fold = new UsageFold()): Generator<UsageRecord> {
  if (query.turn === undefined) {
    const bounds = {
      ...(query.after !== undefined ? { after: query.after } : {}),
      ...(query.through !== undefined ? { before: query.through + 1 } : {}),
    };
    for (const event of log.iterate({ type: 'usage.rolled_up', ...bounds }))
      for (const record of rolledRecords(event.seq, event.data as RolledUp))
        if (query.since === undefined || record.at >= query.since) yield record;
  }
  for (const event of usageEvents(log, query)) {
    const record = fold.apply(event);
    if (record && (query.since === undefined || record.at >= query.since)) yield record;
  }
}

export type UsageBy = 'day' | 'hour' | 'agent' | 'session' | 'model';
export const USAGE_BY: readonly UsageBy[] = ['day', 'hour', 'agent', 'session', 'model'];

export interface UsageRow {
  key: string;
  /** Model answers counted. */
  calls: number;
  turns: number;
  tokens: Tokens;
  /** Dollars for the answers of priced models. */
  cost_usd: number;
  /** Answers of models with no price (their cost is not in `cost_usd`). */
  unpriced_calls: number;
  /** Answers without usage figures (their tokens and cost are unknown). */
  unreported_calls: number;
}

export interface UsageSummary {
  rows: UsageRow[];
  total: UsageRow;
  /** Models answers came from that have no price (set `model_list[].pricing`). */
  unpriced_models: string[];
}

/** `2026-11-26` in the machine's time zone: budgets and `--by day` follow the user's calendar. */
export function localDay(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** `2026-11-26 14:00` in the machine's time zone: the hour an answer came in, sorting as text like days do. */
export function localHour(at: number): string {
  return `${localDay(at)} ${String(new Date(at).getHours()).padStart(2, '0')}:00`;
}

function keyOf(record: UsageRecord, by: UsageBy): string {
  switch (by) {
    case 'day':
      return localDay(record.at);
    case 'hour':
      return localHour(record.at);
    case 'agent':
      return record.agent;
    case 'session':
      return record.session;
    case 'model':
      return record.model_name;
  }
}

const emptyRow = (key: string): UsageRow => ({
  key,
  calls: 0,
  turns: 0,
  tokens: noTokens(),
  cost_usd: 0,
  unpriced_calls: 0,
  unreported_calls: 0,
});

function add(row: UsageRow, record: UsageRecord, turns: Set<string>, priceOf: PriceOf): void {
  const calls = record.rollup?.calls ?? 1;
  row.calls += calls;
  if (record.rollup) row.turns += record.rollup.turns;
  else if (!turns.has(record.turn)) {
    turns.add(record.turn);
    row.turns++;
  }
  addTokens(row.tokens, record.tokens);
  row.unreported_calls += record.rollup?.unreported_calls ?? (record.unreported ? 1 : 0);
  const price = priceOf(record.model_name);
  if (price) row.cost_usd += costOf(record.tokens, price);
  else row.unpriced_calls += calls;
}

/**
 * Usage summed by day, hour, agent, session or model (rows in key order; days and hours oldest first), with a total.
 */
export function summarizeUsage(records: Iterable<UsageRecord>, by: UsageBy, priceOf: PriceOf): UsageSummary {
  const rows = new Map<string, { row: UsageRow; turns: Set<string> }>();
  const total = { row: emptyRow('total'), turns: new Set<string>() };
  const unpriced = new Set<string>();
  for (const record of records) {
    const key = keyOf(record, by);
    const entry = rows.get(key) ?? { row: emptyRow(key), turns: new Set<string>() };
    rows.set(key, entry);
    add(entry.row, record, entry.turns, priceOf);
    add(total.row, record, total.turns, priceOf);
    if (!priceOf(record.model_name)) unpriced.add(record.model_name);
  }
  return {
    rows: [...rows.values()].map((e) => e.row).sort((a, b) => a.key.localeCompare(b.key)),
    total: total.row,
    unpriced_models: [...unpriced].sort(),
  };
}

/** A row as `tern usage --json` and `GET /api/usage` answer it. */
export function usageRowJson(row: UsageRow): UsageRowView {
  return {
    key: row.key,
    turns: row.turns,
    calls: row.calls,
    input_tokens: row.tokens.input,
    cached_input_tokens: row.tokens.cached,
    cache_write_input_tokens: row.tokens.cache_write,
    output_tokens: row.tokens.output,
    reasoning_tokens: row.tokens.reasoning,
    cost_usd: roundUsd(row.cost_usd),
    unpriced_calls: row.unpriced_calls,
    unreported_calls: row.unreported_calls,
  };
}

export class UsageSinceError extends Error {
  readonly code = 'usage_since_invalid';
}

const RELATIVE = /^(\d+)([dhm])$/;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

/**
 * `--since` as users write it: a local date (`2026-11-01`, from its midnight), a time (`2026-11-01T09:00:00Z`) or an
 * age (`7d`, `12h`, `30m` before `now`). Throws `UsageSinceError` for anything else.
 */
export function parseSince(text: string, now: Date): number {
  const relative = RELATIVE.exec(text.trim());
  if (relative) return now.getTime() - Number(relative[1]) * UNIT_MS[relative[2] as keyof typeof UNIT_MS];
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  const at = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime() : Date.parse(text);
  if (Number.isNaN(at))
    throw new UsageSinceError(`"${text}" is not a date (allowed: 2026-11-01, an ISO time, or 7d, 12h, 30m)`);
  return at;
}

/** One turn's answers summed (its own, not its subagents'), by model. */
export function turnUsage(log: EventStore, turn: string, priceOf: PriceOf): TurnUsageView {
  const summary = summarizeUsage(readUsage(log, { turn }), 'model', priceOf);
  const { key: _total, ...total } = usageRowJson(summary.total);
  return { ...total, models: summary.rows.map((row) => row.key), unpriced_models: summary.unpriced_models };
}

import { existsSync } from 'node:fs';
import { EventLog } from '../../../store/log/event-log.js';
import { knownSessions } from '../../../store/log/session-lookup.js';
import { logDir } from '../../../store/paths.js';
import { dollars, pricesOf } from '../../../store/usage/prices.js';
import {
  parseSince,
  readUsage,
  summarizeUsage,
  USAGE_BY,
  usageRowJson,
  UsageSinceError,
  type UsageBy,
  type UsageRow,
  type UsageSummary,
} from '../../../store/usage/usage-log.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';
import { SessionIdPrinter } from '../session-arg.js';

function byOf(value: unknown): UsageBy {
  if (value === undefined) return 'day';
  if (typeof value === 'string' && (USAGE_BY as readonly string[]).includes(value)) return value as UsageBy;
  throw new UsageError(`--by takes ${USAGE_BY.join(', ')}, got "${String(value)}"`);
}

function sinceOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return parseSince(value, new Date());
  } catch (error) {
    if (error instanceof UsageSinceError) throw new UsageError(`--since: ${error.message}`);
    throw error;
  }
}

const number = (n: number): string => n.toLocaleString('en-US');

function table(summary: UsageSummary, label: (key: string) => string, by: UsageBy): string[] {
  const cells = (row: UsageRow, key: string): string[] => [
    key,
    number(row.turns),
    number(row.calls),
    number(row.tokens.input),
    number(row.tokens.cached),
    number(row.tokens.output),
    number(row.tokens.reasoning),
    row.unpriced_calls === row.calls && row.calls > 0
      ? '?'
      : `${dollars(row.cost_usd)}${row.unpriced_calls > 0 ? '+?' : ''}`,
  ];
  const rows = [
    [by, 'turns', 'calls', 'input', 'cached', 'output', 'reasoning', 'cost'],
    ...summary.rows.map((r) => cells(r, label(r.key))),
    cells(summary.total, 'total'),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** Sessions print by their readable key where the log has it, else by an id prefix that pastes back into --session. */
function sessionLabels(log: EventLog): (key: string) => string {
  const keys = new Map(knownSessions(log).map((s) => [s.id, s.key]));
  const ids = new SessionIdPrinter(log);
  return (id) => keys.get(id) ?? ids.print(id);
}

export async function run({ values, json, stdout, stderr, env }: CommandContext): Promise<number> {
  const by = byOf(values.by);
  const since = sinceOf(values.since);
  const loaded = readConfigForCli(env);
  const priceOf = pricesOf(loaded.config);
  const dir = logDir(loaded.workspace);
  const log = existsSync(`${dir}/data.mdb`) ? EventLog.open(dir, { readOnly: true }) : undefined;
  try {
    const summary = summarizeUsage(log ? readUsage(log, since === undefined ? {} : { since }) : [], by, priceOf);
    if (json) {
      print(
        stdout,
        JSON.stringify({
          ok: true,
          by,
          ...(since !== undefined ? { since: new Date(since).toISOString() } : {}),
          rows: summary.rows.map(usageRowJson),
          total: usageRowJson(summary.total),
          unpriced_models: summary.unpriced_models,
        }),
      );
      return 0;
    }
    if (summary.total.calls === 0) {
      print(stdout, 'No model answers recorded yet.');
      return 0;
    }
    const label = by === 'session' && log ? sessionLabels(log) : (key: string) => key;
    for (const line of table(summary, label, by)) print(stdout, line);
    if (summary.unpriced_models.length > 0) {
      print(
        stderr,
        `tern: note: no price for ${summary.unpriced_models.join(', ')}: their ` +
          `answers are not in the cost (?); set model_list[].pricing {input, output, ` +
          `cached_input, cache_write_input} in US dollars per million tokens`,
      );
    }
    return 0;
  } finally {
    log?.close();
  }
}

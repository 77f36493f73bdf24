import { existsSync } from 'node:fs';
import { toSessionId, typeMatcher, type Envelope } from '../../../bus/index.js';
import { childTimelines, withChildEvents } from '../../../store/log/child-timelines.js';
import { EventLog, type LogQuery } from '../../../store/log/event-log.js';
import { follow } from '../../../store/log/follow.js';
import { logDir } from '../../../store/paths.js';
import { resolveWorkspace } from '../../../store/workspace-path.js';
import type { CommandContext } from '../command.js';
import { UsageError } from '../errors.js';
import { formatEvent } from '../format-event.js';

const DEFAULT_LIMIT = 50;

function whole(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} takes a whole number, got "${String(value)}"`);
  return n;
}

function queryOf(values: CommandContext['values']): LogQuery {
  return {
    session: typeof values.session === 'string' ? toSessionId(values.session) : undefined,
    turn: typeof values.turn === 'string' ? values.turn : undefined,
    type: typeof values.type === 'string' ? values.type : undefined,
    after: whole('after', values.after),
    limit: whole('limit', values.limit),
  };
}

/** Without `--after` the newest events are wanted, printed oldest first like `tail`. */
function backlog(log: EventLog, query: LogQuery): Envelope[] {
  if (query.after !== undefined) return log.read({ ...query, order: 'asc', limit: query.limit ?? Infinity });
  return log.read({ ...query, order: 'desc', limit: query.limit ?? DEFAULT_LIMIT }).reverse();
}


/** `--children`: the turn's events with those of the subagents it started (and theirs), in log order. */
function withChildren(log: EventLog, query: LogQuery): Envelope[] {
  const own = log.read({ ...query, type: undefined, limit: undefined, order: 'asc' });
  const all = withChildEvents(own, childTimelines(log, own));
  const matching = query.type ? all.filter((e) => typeMatcher(query.type!)(e.type)) : all;
  return query.limit === undefined ? matching : matching.slice(-query.limit);
}

export async function run(context: CommandContext): Promise<number> {
  const { values, json, stdout, signal, env } = context;
  const query = queryOf(values);
  if (values.children && query.turn === undefined) throw new UsageError('--children needs --turn ID', 'e.g. `tern log --turn t_m1abc2def --children`.');
  if (values.children && values.follow) throw new UsageError('--children cannot be combined with --follow', 'Follow the log without --children, or read a finished turn.');
  const dir = logDir(resolveWorkspace(env));
  const write = (e: Envelope) => stdout.write(`${json ? JSON.stringify(e) : formatEvent(e)}\n`);
  if (!existsSync(`${dir}/data.mdb`) && !values.follow) return 0;
  const log = await EventLog.openWhenReady(dir, signal);
  if (!log) return 0;
  try {
    const first = values.children ? withChildren(log, query) : backlog(log, query);
    first.forEach(write);
    if (!values.follow) return 0;
    const after = first.at(-1)?.seq ?? Math.max(query.after ?? 0, log.lastCommittedSeq());
    for await (const event of follow(log, { ...query, after }, { signal })) write(event);
    return 0;
  } finally {
    log.close();
  }
}

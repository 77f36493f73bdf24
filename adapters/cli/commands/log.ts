import { defaultAgent } from '../../../actors/dispatch.js';
import { typeMatcher, type Envelope } from '../../../bus/index.js';
import type { LoadedConfig } from '../../../store/config/index.js';
import { childTimelines, withChildEvents } from '../../../store/log/child-timelines.js';
import { EventLog } from '../../../store/log/event-log.js';
import type { EventStore, LogQuery } from '../../../store/log/event-store.js';
import { follow } from '../../../store/log/follow.js';
import { readArchive } from '../../../store/log/compact.js';
import { logDir } from '../../../store/paths.js';
import { readWorkspaceConfig } from '../../../store/workspace-path.js';
import { openClusterRead } from '../cluster-read.js';
import type { CommandContext } from '../command.js';
import { UsageError } from '../errors.js';
import { formatEvent } from '../format-event.js';
import { SessionIdPrinter, sessionArg } from '../session-arg.js';

const DEFAULT_LIMIT = 50;

function whole(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} takes a whole number, got "${String(value)}"`);
  return n;
}

function queryOf(values: CommandContext['values']): LogQuery {
  return {
    turn: typeof values.turn === 'string' ? values.turn : undefined,
    type: typeof values.type === 'string' ? values.type : undefined,
    after: whole('after', values.after),
    limit: whole('limit', values.limit),
  };
}

/** Without `--after` the newest events are wanted, printed oldest first like `tail`. */
function backlog(log: EventStore, query: LogQuery): Envelope[] {
  if (query.after !== undefined) return log.read({ ...query, order: 'asc', limit: query.limit ?? Infinity });
  return log.read({ ...query, order: 'desc', limit: query.limit ?? DEFAULT_LIMIT }).reverse();
}

/** The agent a plain `--session` word belongs to while the log has no such session yet: the default one. */
const defaultAgentOf = (loaded: LoadedConfig | undefined): string => (loaded ? defaultAgent(loaded.config) : 'main');

/** `--children`: the turn's events with those of the subagents it started (and theirs), in log order. */
function withChildren(log: EventStore, query: LogQuery): Envelope[] {
  const own = log.read({ ...query, type: undefined, limit: undefined, order: 'asc' });
  const all = withChildEvents(own, childTimelines(log, own));
  const matching = query.type ? all.filter((e) => typeMatcher(query.type!)(e.type)) : all;
  return query.limit === undefined ? matching : matching.slice(-query.limit);
}

/** The backlog the query asks for, then (with `--follow`) every new event as it is committed. */
async function show(
  log: EventStore,
  context: CommandContext,
  query: LogQuery,
  named: string | undefined,
  loaded: LoadedConfig | undefined,
): Promise<number> {
  const { values, json, stdout, signal } = context;
  const following = values.follow === true;
  if (named !== undefined)
    query.session = sessionArg(log, named, following ? { agent: defaultAgentOf(loaded) } : undefined);
  const ids = new SessionIdPrinter(log);
  const write = (e: Envelope) => stdout.write(`${json ? JSON.stringify(e) : formatEvent(e, (id) => ids.print(id))}\n`);
  const first = values.children ? withChildren(log, query) : backlog(log, query);
  first.forEach(write);
  if (!following) return 0;
  const after = first.at(-1)?.seq ?? Math.max(query.after ?? 0, log.lastCommittedSeq());
  for await (const event of follow(log, { ...query, after }, { signal })) write(event);
  return 0;
}

/** `--archive`: what `tern log compact` moved out of the log, with the same filters (a session by its full id). */
function showArchive(context: CommandContext, query: LogQuery, named: string | undefined, workspace: string): number {
  const { json, stdout } = context;
  const filter: LogQuery = { ...query, limit: undefined, ...(named !== undefined ? { session: named } : {}) };
  const events = [...readArchive(logDir(workspace), filter)];
  const shown = query.limit === undefined ? events : events.slice(-query.limit);
  for (const e of shown) stdout.write(`${json ? JSON.stringify(e) : formatEvent(e, (id) => id ?? '-')}\n`);
  return 0;
}

/** This workspace's log, or with `--cluster` / `cluster.url` the cluster log: every gateway's events. */
export async function run(context: CommandContext): Promise<number> {
  const { values, signal, env, positionals } = context;
  const [action, ...extra] = positionals;
  if (action !== undefined) {
    const takes = action === 'import' ? 1 : 0;
    if (!['verify', 'salvage', 'compact', 'forget', 'import'].includes(action) || extra.length !== takes) {
      const fix = 'Run `tern log --help` (commands: verify, salvage, compact, forget, import FILE).';
      throw new UsageError(`unknown log command "${positionals.join(' ')}"`, fix);
    }
    if (action === 'compact' || action === 'forget' || action === 'import') {
      const { compact, forget, importFile } = await import('./log-compact.js');
      if (action === 'compact') return compact(context);
      const dir = logDir(readWorkspaceConfig(env).workspace);
      return action === 'import' ? importFile(dir, extra[0]!, context) : forget(dir, context);
    }
    const dir = logDir(readWorkspaceConfig(env).workspace);
    const { verify, salvage } = await import('./log-repair.js');
    return action === 'verify' ? verify(dir, context) : salvage(dir, context);
  }
  const query = queryOf(values);
  const named = typeof values.session === 'string' ? values.session : undefined;
  const { loaded, workspace } = readWorkspaceConfig(env);
  if (values.archive) return showArchive(context, query, named, workspace);
  const following = values.follow === true;
  if (values.children && query.turn === undefined)
    throw new UsageError('--children needs --turn ID', 'e.g. `tern log --turn t_m1abc2def --children`.');
  if (values.children && values.follow)
    throw new UsageError(
      '--children cannot be combined with --follow',
      'Follow the log without --children, or read a finished turn.',
    );
  const cluster = await openClusterRead(context, 'log', loaded);
  if (cluster) {
    try {
      return await show(cluster.log, context, query, named, loaded);
    } finally {
      await cluster.close();
    }
  }
  const dir = logDir(workspace);
  const log = following
    ? await EventLog.openWhenReady(dir, signal, () =>
        context.stderr.write(`tern: no event log in ${dir} yet; waiting for a gateway to write one\n`),
      )
    : EventLog.openIfMade(dir);
  if (!log) {
    if (named !== undefined && !following) sessionArg(undefined, named);
    return 0;
  }
  try {
    return await show(log, context, query, named, loaded);
  } finally {
    log.close();
  }
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EventLog } from '../../../store/log/event-log.js';
import { MemoryEventStore } from '../../../store/log/memory-event-store.js';
import { logDir } from '../../../store/paths.js';
import { Recall, type RecallResult } from '../../../store/memory/recall.js';
import { embedderOf } from '../../../actors/wiring/embedder.js';
import type { RecallViewer } from '../../../store/memory/recall-index.js';
import { print, type CommandContext } from '../command.js';
import { UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';
import { sessionArg } from '../session-arg.js';

const DEFAULT_LIMIT = 10;

function limitOf(value: unknown): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 100)) throw new UsageError(`--limit takes a whole number from 1 to 100, got "${String(value)}"`);
  return n;
}

function line(result: RecallResult): string {
  const where =
    result.source === 'memory'
      ? `${result.path}:${result.startLine}-${result.endLine}`
      : `${result.at}  turn ${result.turn_id}  ${result.session}`;
  return `${result.score.toFixed(2)}  ${where}\n  ${result.snippet.replace(/\n/g, '\n  ')}`;
}

/**
 * `tern memory search Q`: what `memory_search` finds, as the owner sees it (every chat of the agent, or with
 * `--session` what that chat may recall). `tern memory reindex`: build the index again from the log.
 */
export async function run(context: CommandContext): Promise<number> {
  const { positionals, values, json, stdout, env } = context;
  const [action, ...words] = positionals;
  if (action !== 'search' && action !== 'reindex') {
    throw new UsageError(
      `memory takes "search" or "reindex", got ${action === undefined ? 'nothing' : `"${action}"`}`,
      'Run `tern memory --help`.',
    );
  }
  const query = words.join(' ').trim();
  if (action === 'search' && query === '')
    throw new UsageError('memory search needs words to look for', 'Example: tern memory search flat March');
  if (action === 'reindex' && words.length > 0)
    throw new UsageError(`memory reindex takes no words, got "${words.join(' ')}"`);
  const limit = limitOf(values.limit);
  const loaded = readConfigForCli(env);
  const agent =
    typeof values.agent === 'string'
      ? values.agent
      : (loaded.config.agents.list.find((a) => a.default)?.id ?? loaded.config.agents.list[0]?.id ?? 'main');
  const dir = logDir(loaded.workspace);
  const log = existsSync(join(dir, 'data.mdb')) ? EventLog.open(dir, { readOnly: true }) : undefined;
  const recall = Recall.open(log ?? new MemoryEventStore(), loaded.workspace, {
    embedder: () => embedderOf(loaded.config),
    report: (problem) => context.stderr.write(`tern: ${problem}\n`),
  });
  try {
    if (action === 'reindex') {
      const started = performance.now();
      recall.reindex();
      if (log) recall.save();
      const seconds = Math.round(performance.now() - started) / 1000;
      if (json) print(stdout, JSON.stringify({ ok: true, turns: recall.turns, position: recall.position, seconds }));
      else print(stdout, `Indexed ${recall.turns} turns (log up to ${recall.position}) in ${seconds} s.`);
      return 0;
    }
    const session = typeof values.session === 'string' ? sessionArg(log, values.session) : undefined;
    const viewer: RecallViewer = session
      ? {
          agent,
          channel: '',
          chat: '',
          session,
          scope:
            loaded.config.agents.list.find((a) => a.id === agent)?.memory?.scope ??
            loaded.config.agents.defaults.memory.scope,
        }
      : { agent, channel: '', chat: '', scope: 'shared' };
    const results = await recall.find(query, viewer, limit);
    if (log) recall.save();
    if (json) print(stdout, JSON.stringify({ ok: true, results }));
    else if (results.length === 0) print(stdout, `Nothing in memory matches "${query}".`);
    else print(stdout, results.map(line).join('\n'));
    return 0;
  } finally {
    recall.stop();
    log?.close();
  }
}

import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { applies, decide, type DecisionRequest } from '../../../actors/evolution/decide.js';
import { EvolutionView, type Draft } from '../../../actors/evolution/projection.js';
import { InProcessBus, type Envelope } from '../../../bus/index.js';
import type { LoadedConfig } from '../../../store/config/index.js';
import { LogError } from '../../../store/log/errors.js';
import { EventLog } from '../../../store/log/event-log.js';
import { logDir } from '../../../store/paths.js';
import {
  decisionInbox,
  draftCopyPath,
  evolutionStateDir,
  queueDecision,
  syncDraftCopies,
} from '../../../store/skills/evolution-files.js';
import { print, type CommandContext } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { columns } from '../table.js';

export const EVOLUTION_SUBCOMMANDS = ['drafts', 'accept', 'reject'] as const;
type DecisionCommand = 'accept' | 'reject';

/** How long `accept`/`reject` waits for the process that holds the log to record a queued decision. */
const QUEUED_ANSWER_MS = 15_000;
const ANSWERS = [
  'skill.accepted',
  'skill.rejected',
  'skill.decision.refused',
  'skill.applied',
  'skill.apply_failed',
] as const;

function readView(loaded: LoadedConfig): EvolutionView {
  let log: EventLog;
  try {
    log = EventLog.open(logDir(loaded.workspace), { readOnly: true });
  } catch (error) {
    if (error instanceof LogError && error.code === 'log_missing') return new EvolutionView();
    throw error;
  }
  try {
    return EvolutionView.fromLog(log);
  } finally {
    log.close();
  }
}

function draftJson(draft: Draft, stateDir: string) {
  return { ...draft, ...(draft.status === 'pending' ? { copy: draftCopyPath(stateDir, draft.id) } : {}) };
}

function drafts(context: CommandContext, loaded: LoadedConfig): number {
  const list = readView(loaded).draftList();
  const stateDir = evolutionStateDir(loaded.workspace, loaded.config.evolution.state_dir);
  if (context.json)
    print(context.stdout, JSON.stringify({ ok: true, drafts: list.map((d) => draftJson(d, stateDir)) }));
  else if (list.length === 0)
    print(
      context.stdout,
      loaded.config.evolution.enabled && loaded.config.evolution.mode !== 'observe'
        ? 'no skill drafts yet'
        : 'no skill drafts (evolution drafts skills with evolution.enabled and mode draft or apply)',
    );
  else {
    const rows = list.map((d) => [
      d.id,
      d.name,
      d.status,
      d.shape,
      String(d.records.length),
      new Date(d.drafted_at).toISOString().slice(0, 16).replace('T', ' '),
      d.description,
    ]);
    print(context.stdout, columns(['ID', 'NAME', 'STATUS', 'SHAPE', 'RECORDS', 'DRAFTED', 'DESCRIPTION'], rows));
  }
  return 0;
}

/** The decision's last event as the line (or JSON) the user reads; a refusal or a failed write is an error. */
function report(context: CommandContext, answer: Envelope, request: DecisionRequest, name: string): number {
  const verb = request.decision === 'accept' ? 'accepted' : 'rejected';
  if (answer.type === 'skill.decision.refused') {
    throw new CliError(
      'draft_refused',
      `draft ${request.draft} was not ${verb}`,
      answer.data.reason,
      'Run `tern skills drafts` to see the drafts and their states.',
    );
  }
  if (answer.type === 'skill.apply_failed') {
    throw new CliError(
      'apply_failed',
      `draft ${request.draft} was accepted but not written into skills/`,
      answer.data.reason,
      'Fix the cause; the next cold-path run tries again.',
    );
  }
  const applied = answer.type === 'skill.applied' ? answer.data : undefined;
  if (context.json) {
    print(
      context.stdout,
      JSON.stringify({
        ok: true,
        draft: request.draft,
        name,
        status: applied ? 'applied' : verb,
        ...(applied ? { path: applied.path, ...(applied.backup ? { backup: applied.backup } : {}) } : {}),
      }),
    );
    return 0;
  }
  if (applied)
    print(
      context.stdout,
      `accepted draft ${request.draft} (${name}) and wrote it to ` +
        `${applied.path}${applied.backup ? ` (the skill it replaced is kept in ${applied.backup})` : ''}`,
    );
  else if (request.decision === 'accept')
    print(
      context.stdout,
      `accepted draft ${request.draft} (${name}); it is written into skills/ when evolution.mode is apply`,
    );
  else print(context.stdout, `rejected draft ${request.draft} (${name})`);
  return 0;
}

/** No other process writes the log: the decision is taken here, as the evolution actor would take it. */
async function decideHere(log: EventLog, loaded: LoadedConfig, request: DecisionRequest): Promise<Envelope> {
  try {
    const bus = new InProcessBus(log);
    const view = EvolutionView.fromLog(log);
    bus.events$.subscribe((event) => view.fold(event));
    const answer = decide(
      { bus, view, config: () => loaded.config, workspace: loaded.workspace, now: () => new Date() },
      request,
    );
    syncDraftCopies(
      evolutionStateDir(loaded.workspace, loaded.config.evolution.state_dir),
      view.draftList().filter((d) => d.status === 'pending'),
    );
    await log.flushed();
    return answer;
  } finally {
    log.close();
  }
}

/** The log's writer (a gateway) takes queued decisions every 2 s; its answer is read from the log. */
async function decideThere(
  loaded: LoadedConfig,
  request: DecisionRequest,
  holder: string,
  signal: AbortSignal,
): Promise<Envelope> {
  const dir = logDir(loaded.workspace);
  const reader = EventLog.open(dir, { readOnly: true });
  try {
    const after = reader.lastCommittedSeq();
    queueDecision(loaded.workspace, request);
    const finalTypes: ReadonlySet<string> = new Set(
      request.decision === 'accept' && applies(loaded.config)
        ? ['skill.decision.refused', 'skill.applied', 'skill.apply_failed']
        : ANSWERS,
    );
    const deadline = Date.now() + QUEUED_ANSWER_MS;
    while (Date.now() < deadline && !signal.aborted) {
      reader.refresh();
      for (const type of ANSWERS) {
        const answer = reader
          .read({ type, after })
          .find((e) => (e.data as { request?: string }).request === request.request);
        if (answer && finalTypes.has(answer.type)) return answer;
      }
      await sleep(100);
    }
  } finally {
    reader.close();
  }
  throw new CliError(
    'decision_queued',
    `the decision on ${request.draft} is queued but not recorded yet`,
    `${holder}; it did not take the request from ` +
      `${decisionInbox(loaded.workspace)} within ${QUEUED_ANSWER_MS / 1000} s`,
    'It is recorded once that process runs its agents; check with `tern skills drafts`.',
  );
}

async function decision(context: CommandContext, sub: DecisionCommand, loaded: LoadedConfig): Promise<number> {
  const id = context.positionals[1];
  if (!id) throw new UsageError(`skills ${sub} needs a draft ID`, 'Run `tern skills drafts` to see the IDs.');
  const request: DecisionRequest = {
    request: `r_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`,
    draft: id,
    decision: sub,
    by: 'cli',
  };
  const known = readView(loaded).drafts.get(id);
  if (!known)
    throw new CliError(
      'draft_refused',
      `draft ${id} was not ${sub}ed`,
      `there is no draft ${id}`,
      'Run `tern skills drafts` to see the drafts and their states.',
    );
  let log: EventLog;
  try {
    log = EventLog.open(logDir(loaded.workspace));
  } catch (error) {
    if (!(error instanceof LogError && error.code === 'log_locked')) throw error;
    return report(context, await decideThere(loaded, request, error.message, context.signal), request, known.name);
  }
  return report(context, await decideHere(log, loaded, request), request, known.name);
}

export function evolutionCommand(
  context: CommandContext,
  sub: (typeof EVOLUTION_SUBCOMMANDS)[number],
  loaded: LoadedConfig,
): Promise<number> | number {
  return sub === 'drafts' ? drafts(context, loaded) : decision(context, sub, loaded);
}

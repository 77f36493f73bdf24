import type { Bus, Envelope } from '../bus/index.js';
import type { EventLog } from '../store/log/event-log.js';

const ENDINGS = ['turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted'] as const;

/**
 * Turns the previous run started and never ended were cut off (the process died). Each gets an explicit
 * `turn.aborted`, so no turn is left open. Only the previous run is searched: earlier ones were closed by
 * the run after them.
 */
export function closeCutOffTurns(log: EventLog, bus: Bus): string[] {
  const lastStart = log.read({ type: 'runtime.started', order: 'desc', limit: 1 })[0]?.seq ?? 0;
  const started = log.read({ type: 'turn.started', after: lastStart });
  if (started.length === 0) return [];
  const ended = new Set<string>();
  for (const type of ENDINGS) for (const e of log.read({ type, after: lastStart })) if (e.turn) ended.add(e.turn);
  const open = started.filter((e): e is Envelope<'turn.started'> => e.type === 'turn.started' && !!e.turn && !ended.has(e.turn));
  for (const e of open) {
    bus.publish({ agent: e.agent, session: e.session, turn: e.turn, type: 'turn.aborted', data: { reason: 'the process ended while this turn was running' } });
  }
  return open.map((e) => e.turn!);
}

/**
 * Subagent tasks the previous run spawned and never ended were cut off with it: each gets a `subagent.ended`
 * (`canceled`, saying so) under its parent's keys, so `spawn_status`'s record in the log is never left running.
 */
export function closeCutOffTasks(log: EventLog, bus: Bus): string[] {
  const lastStart = log.read({ type: 'runtime.started', order: 'desc', limit: 1 })[0]?.seq ?? 0;
  const spawned = log.read({ type: 'subagent.spawned', after: lastStart });
  if (spawned.length === 0) return [];
  const ended = new Set(log.read({ type: 'subagent.ended', after: lastStart }).map((e) => e.task));
  const open = spawned.filter((e): e is Envelope<'subagent.spawned'> => e.type === 'subagent.spawned' && !ended.has(e.data.task_id));
  for (const e of open) {
    bus.publish({ agent: e.agent, session: e.session, turn: e.turn, task: e.data.task_id, type: 'subagent.ended', data: { task_id: e.data.task_id, status: 'canceled', reason: 'the process ended while this task was running' } });
  }
  return open.map((e) => e.data.task_id);
}

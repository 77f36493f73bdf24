import type { Envelope } from '../../bus/index.js';

export type EventSeverity = 'debug' | 'info' | 'warn' | 'error';

/** Tern's events have no severity of their own: these are the ones not at `info` (docs/configuration.md). */
const SEVERITIES: Readonly<Record<string, EventSeverity>> = {
  'provider.chunk': 'debug',
  'actor.transitioned': 'debug',
  'prompt.built': 'debug',
  'provider.retried': 'warn',
  'budget.warned': 'warn',
  'loop.warned': 'warn',
  'turn.stopped': 'warn',
  'turn.aborted': 'warn',
  'message.dropped': 'warn',
  'mcp.hidden': 'warn',
  'budget.reached': 'error',
  'turn.failed': 'error',
  'provider.failed': 'error',
  'channel.failed': 'error',
  'mcp.failed': 'error',
  'log.failed': 'error',
  'log.lost': 'error',
  'config.rejected': 'error',
  'message.undelivered': 'error',
  'skill.apply_failed': 'error',
  'skill.draft_failed': 'error',
  'pairing.decision.failed': 'error',
};

export const SEVERITY_RANK: Readonly<Record<EventSeverity, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A failed tool call is a warning: the model gets the error as the tool's result and goes on. */
export function severityOf(event: Envelope): EventSeverity {
  if (event.type === 'tool.completed' && !(event as Envelope<'tool.completed'>).data.ok) return 'warn';
  return SEVERITIES[event.type] ?? 'info';
}

/** The agent loop's events: the peer's `agent.*` names them, so `agent.turn.*` matches Tern's `turn.*`. */
const AGENT_FAMILIES = ['turn.', 'provider.', 'tool.', 'subagent.', 'prompt.', 'approval.', 'todo.', 'session.'];

/** The kinds a pattern is matched against: the event's type, and `agent.<type>` for the agent loop's events. */
export function kindsOf(type: string): string[] {
  return AGENT_FAMILIES.some((family) => type.startsWith(family)) ? [type, `agent.${type}`] : [type];
}

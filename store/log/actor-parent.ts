import type { Envelope } from '../../bus/index.js';

/**
 * Where an actor hangs in the tree of live actors, from its machine and the correlation keys of its moves: a turn
 * under its session, a session under its agent (a subagent's session under its task), a subagent task under the
 * turn that started it, everything else under the gateway.
 */
export function actorParent(machine: string, event: Envelope): string | undefined {
  if (machine === 'gateway') return undefined;
  if (machine === 'turn' && event.session) return `session:${event.session}`;
  if (machine === 'session' && event.task) return `subagent:${event.task}`;
  if (machine === 'session' && event.agent) return `agent:${event.agent}`;
  if (machine === 'subagent' && event.turn) return `turn:${event.turn}`;
  return 'gateway';
}

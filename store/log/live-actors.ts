import type { Envelope } from '../../bus/index.js';
import { actorParent } from './actor-parent.js';
import type { EventStore } from './event-store.js';

export interface LiveActor {
  actor: string;
  machine: string;
  state: string;
  /** The event that moved it last. */
  event: string;
  /** When it entered its current state (epoch ms). */
  since: number;
  agent?: string;
  session?: string;
  turn?: string;
  /** The actor it hangs under (`actor-parent.ts`); the gateway's own actors have none. */
  parent?: string;
}

export type LiveActors = Map<string, LiveActor>;

/** Live actors as a fold: transitions set an actor's state, `actor.stopped` removes it, a new run starts empty. */
export function foldLiveActors(actors: LiveActors, event: Envelope): LiveActors {
  switch (event.type) {
    case 'runtime.started':
      actors.clear();
      break;
    case 'actor.transitioned': {
      const parent = actorParent(event.data.machine, event);
      actors.set(event.data.actor, {
        actor: event.data.actor,
        machine: event.data.machine,
        state: event.data.to,
        event: event.data.event,
        since: event.at,
        agent: event.agent,
        session: event.session,
        turn: event.turn,
        ...(parent && parent !== 'gateway' ? { parent } : {}),
      });
      break;
    }
    case 'actor.stopped':
      actors.delete(event.data.actor);
      break;
    default:
  }
  return actors;
}

export const LIVE_ACTOR_TYPES = 'runtime.started,actor.transitioned,actor.stopped';

/** The live actors of the run that wrote the log last, read from the log (no need to reach the process). */
export function readLiveActors(log: EventStore): LiveActors {
  const start = log.read({ type: 'runtime.started', order: 'desc', limit: 1 })[0]?.seq ?? 0;
  return log.read({ type: LIVE_ACTOR_TYPES, after: Math.max(0, start - 1) }).reduce(foldLiveActors, new Map());
}

import { sessionIdOf, type Envelope } from '../../bus/index.js';
import type { EventStore } from './event-store.js';

/** A subagent task started in a turn: the parent's tool call that started it and its child's own events. */
export interface ChildTimeline {
  task: string;
  agent: string;
  mode: 'spawn' | 'subagent';
  label?: string;
  /** The `spawn` or `subagent` call of the parent that started it. */
  call?: string;
  /** Every event of the child's session, in log order. */
  events: Envelope[];
  /** The tasks the child started in turn. */
  children: ChildTimeline[];
}

const DELEGATING = new Set(['spawn', 'subagent']);

/**
 * The subagent tasks a turn started (its `subagent.spawned` events), each with the events of its session, read from
 * the log, and the tasks those started, down to the last level. A task is tied to the `spawn` or `subagent` call
 * that was open when it was spawned.
 */
export function childTimelines(log: EventStore, events: readonly Envelope[]): ChildTimeline[] {
  const open: string[] = [];
  const found: ChildTimeline[] = [];
  for (const event of events) {
    if (event.type === 'tool.requested' && DELEGATING.has(event.data.name)) open.push(event.data.call_id);
    else if (event.type === 'tool.completed') {
      const at = open.indexOf(event.data.call_id);
      if (at >= 0) open.splice(at, 1);
    } else if (event.type === 'subagent.spawned') {
      const own = log.read({ session: sessionIdOf(event.data.session_key) });
      const call = open.at(-1);
      found.push({
        task: event.data.task_id,
        agent: event.data.agent_id,
        mode: event.data.mode,
        ...(event.data.label ? { label: event.data.label } : {}),
        ...(call ? { call } : {}),
        events: own,
        children: childTimelines(log, own),
      });
    }
  }
  return found;
}

/** A turn's events with those of every task under it, in log order. */
export function withChildEvents(events: readonly Envelope[], children: readonly ChildTimeline[]): Envelope[] {
  const all = [...events];
  const add = (list: readonly ChildTimeline[]): void => {
    for (const child of list) {
      all.push(...child.events);
      add(child.children);
    }
  };
  add(children);
  return all.sort((a, b) => a.seq - b.seq);
}

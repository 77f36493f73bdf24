import type { Actor, AnyStateMachine, EventFromLogic, SnapshotFrom, StateValue } from 'xstate';
import { draftOf, type Bus, type Correlation, type EventData } from '../bus/index.js';
import { stateName } from './machine-state.js';

/** Context values a person reading the machines board needs (a session's queue length, an agent's sessions). */
export type ShownContext = Record<string, string | number | boolean>;

export interface MachineActorPorts<M extends AnyStateMachine> {
  bus: Bus;
  correlation: Correlation;
  /** The board's id of the actor, `session:<id>` or `agent:<id>`. */
  id: string;
  machine: string;
  /** The snapshot's state value and the context values shown with it. */
  view: (snapshot: SnapshotFrom<M>) => { value: StateValue; shown: ShownContext };
  /** Whether the starting state is published at once; an actor whose host announces it later says `false`. */
  announce?: boolean;
}

/** The view of an actor that shows only its state. */
export function stateOnly(snapshot: { value: StateValue }): { value: StateValue; shown: ShownContext } {
  return { value: snapshot.value, shown: {} };
}

function sameShown(a: ShownContext, b: ShownContext): boolean {
  for (const key in a) if (a[key] !== b[key]) return false;
  return true;
}

/**
 * A long-lived actor driven only by its host's `send`: every change of state or of the shown context is
 * published as `actor.transitioned`, and stopping it as `actor.stopped`. Sending from the host, not
 * inspecting the actor system, is what keeps this at one event per move.
 */
export class MachineActor<M extends AnyStateMachine> {
  private current: string;
  private shown: ShownContext;
  /** A view shows the same keys at every move: only a view with some adds `context`. */
  private readonly showsContext: boolean;
  private stopped = false;

  constructor(private readonly actor: Actor<M>, private readonly ports: MachineActorPorts<M>) {
    actor.subscribe({ error: () => {} });
    actor.start();
    const { value, shown } = ports.view(actor.getSnapshot());
    this.current = stateName(value);
    this.shown = shown;
    this.showsContext = Object.keys(shown).length > 0;
    if (ports.announce !== false) this.announce('xstate.init');
  }

  get state(): string {
    return this.current;
  }

  /** Publishes the current state as the actor's first move, caused by `event`. */
  announce(event: string): void {
    this.publish(undefined, event);
  }

  /** A message still queued when its session was stopped may finish later: nothing moves a stopped actor. */
  send(event: EventFromLogic<M>): void {
    if (this.stopped) return;
    this.actor.send(event);
    const { value, shown } = this.ports.view(this.actor.getSnapshot());
    const state = stateName(value);
    if (state === this.current && sameShown(shown, this.shown)) return;
    const from = this.current;
    this.current = state;
    this.shown = shown;
    this.publish(from, event.type);
  }

  stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.actor.stop();
    const { bus, correlation, id, machine } = this.ports;
    bus.publish(draftOf(correlation, 'actor.stopped', { actor: id, machine, reason }));
  }

  // `context` is set on the data, not spread into it: a spread of a maybe-empty object made two more per move.
  private publish(from: string | undefined, event: string): void {
    const { bus, correlation, id, machine } = this.ports;
    const data: EventData<'actor.transitioned'> = { actor: id, machine, from, to: this.current, event };
    if (this.showsContext) data.context = this.shown;
    bus.publish(draftOf(correlation, 'actor.transitioned', data));
  }
}

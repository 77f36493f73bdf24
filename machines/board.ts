import type { StateValue } from 'xstate';
import type { Correlation } from '../bus/index.js';

/** Context values a person reading the machines page needs (a session's queue length, an agent's sessions). */
export type ShownContext = Record<string, string | number | boolean>;

/**
 * How the machines page (and `tern inspect`) shows an actor of one machine: its board id (`session:<id>`), the
 * correlation keys its `actor.transitioned` events carry, and the context shown with its state.
 */
export interface Board<C> {
  id(context: C): string;
  keys?(context: C): Correlation;
  /** The context (and, for a machine with parallel regions, the regions' states) shown with its state. */
  shown?(context: C, value?: StateValue): ShownContext;
  /** The state's name as the board shows it; the whole state value by default. */
  state?(value: StateValue): string;
  /**
   * Why an actor that reached a final state stopped (`actor.stopped`), given the event that took it there; its final
   * state's name by default.
   */
  stopReason?(context: C, cause: string): string;
}

/**
 * An inspection event's cause as a person reads it: `done.model` for `xstate.done.actor.model`, `after.interval` for a
 * delay.
 */
export function causeOf(type: string): string {
  if (type.startsWith('xstate.done.actor.')) return `done.${type.slice('xstate.done.actor.'.length)}`;
  if (type.startsWith('xstate.error.actor.')) return `error.${type.slice('xstate.error.actor.'.length)}`;
  if (type.startsWith('xstate.after.')) return `after.${type.slice('xstate.after.'.length).split('.')[0]}`;
  return type;
}

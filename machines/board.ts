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
  /** Why an actor that reached a final state stopped (`actor.stopped`), given the event that took it there; its final state's name by default. */
  stopReason?(context: C, cause: string): string;
}

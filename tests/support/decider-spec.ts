// Given events → when a command → then the events it decides, in the shape of Emmett's `DeciderSpecification`
// (event-driven-io/emmett): the state is the fold of the given events with `evolve`, and `decide` answers the command.
// `thenNothingHappened` comes in two kinds: the decision is empty, and (with a bus) the bus went quiet with nothing
// of the named types published, which is waited for (tests/support/quiet.ts), never slept for.
import * as assert from 'uvu/assert';
import type { Bus, Envelope, EventType } from '../../bus/index.js';
import { thenNothingHappened, type QuietOptions } from './quiet.js';

export interface Decider<State, Event, Command, Decided> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  decide(state: State, command: Command): Decided[];
}

export interface Then<Decided> {
  /** The events the command decides, exactly, in order. */
  then(expected: Decided[]): void;
  /** The command decides nothing. */
  thenNothingHappened(): void;
}

export const DeciderSpecification = {
  for<State, Event, Command, Decided>(decider: Decider<State, Event, Command, Decided>) {
    return (given: Event[]) => ({
      when(command: Command): Then<Decided> {
        const decided = (): Decided[] => decider.decide(given.reduce(decider.evolve, decider.initialState()), command);
        return {
          then: (expected) => assert.equal(decided(), expected),
          thenNothingHappened: () => assert.equal(decided(), []),
        };
      },
    });
  },
};

/**
 * On a live bus: waits until `bus` went quiet, then fails naming every event of `types` (every type when none is
 * named) that `events` received from index `from` on.
 */
export function thenNothingOn<T extends EventType>(
  bus: Bus,
  events: readonly Envelope[],
  from: number,
  types: readonly T[] = [],
  options: QuietOptions = {},
): Promise<void> {
  const wanted = new Set<string>(types);
  return thenNothingHappened(bus, events, from, (e) => wanted.size === 0 || wanted.has(e.type), options);
}

import type { AnyActorRef, InspectionEvent, StateValue } from 'xstate';
import { draftOf, type Correlation, type EventData, type EventDraft } from '../bus/index.js';
import { causeOf, type Board } from '../machines/board.js';
import { stateName } from './machine-state.js';

type AnyBoard = Board<never>;

/** Where the board's events go: the bus, or a host's report of its drafts. */
export interface BoardOutlet {
  publish(draft: EventDraft): unknown;
}

/** The board of each machine whose actors the machines page shows, by machine id. */
export type Boards = Record<string, AnyBoard>;

interface Shown {
  state: string;
  context?: Record<string, string | number | boolean>;
  keys: Correlation;
  machine: string;
}

/**
 * Publishes the moves of board actors as `actor.transitioned` (and their end as `actor.stopped`), from xstate's
 * inspection of the actor systems it is given to (`createActor(machine, { inspect })`): the machines page and
 * `tern inspect` fold these. A move is a change of state or of the shown context; its `event` is what caused it.
 */
export class BoardInspector {
  private readonly shown = new Map<string, Shown>();

  constructor(
    private readonly bus: BoardOutlet,
    private readonly boards: Boards,
  ) {}

  readonly inspect = (inspection: InspectionEvent): void => {
    if (inspection.type !== '@xstate.snapshot') return;
    const machine = (inspection.actorRef as AnyActorRef & { logic?: { id?: string } }).logic?.id;
    const board = machine === undefined ? undefined : this.boards[machine];
    if (!board || machine === undefined) return;
    const snapshot = inspection.snapshot as unknown as { value: StateValue; context: never; status: string };
    const id = board.id(snapshot.context);
    // An actor its host stopped: the host says why (`stopped`), or it was stopped with its parent.
    if (snapshot.status === 'stopped') return this.stopped(id, 'stopped');
    const state = board.state?.(snapshot.value) ?? stateName(snapshot.value);
    const shown = board.shown ? { context: board.shown(snapshot.context, snapshot.value) } : {};
    const next: Shown = { state, machine, keys: board.keys?.(snapshot.context) ?? {}, ...shown };
    const before = this.shown.get(id);
    const cause = causeOf(inspection.event.type);
    if (!before || before.state !== next.state || !sameShown(before.context, next.context)) {
      const data: EventData<'actor.transitioned'> = {
        actor: id,
        machine,
        from: before?.state,
        to: next.state,
        event: cause,
      };
      if (next.context) data.context = next.context;
      this.bus.publish(draftOf(next.keys, 'actor.transitioned', data));
      this.shown.set(id, next);
    }
    if (snapshot.status !== 'active') this.stopped(id, board.stopReason?.(snapshot.context, cause) ?? next.state);
  };

  /**
   * An actor left the board (it ended, or its host stopped it): `actor.stopped`, once. A host says why before it stops
   * one.
   */
  stopped(id: string, reason: string): void {
    const shown = this.shown.get(id);
    if (!shown) return;
    this.shown.delete(id);
    this.bus.publish(draftOf(shown.keys, 'actor.stopped', { actor: id, machine: shown.machine, reason }));
  }
}

function sameShown(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!a || !b) return a === b;
  for (const key in a) if (a[key] !== b[key]) return false;
  return true;
}

import { assign, setup } from 'xstate';
import { parseTodoPlan, TODO_PLAN_SLOTS, type TodoItem } from './todo-plan-schema.js';

export * from './todo-plan-schema.js';

/**
 * - `WRITE`: the model's complete replacement list, unparsed (missing or null is an error). `slots_full`
 *   is true when the tool already holds its maximum of nonempty plans, so an empty plan cannot take one.
 * - `READ`: the model asks for the plan. - `CLEAR`: the session's `/clear` succeeded.
 * - `RELEASE`: the owner is gone (ephemeral subagent ended); the machine stops.
 */
export type TodoPlanEvent =
  | { type: 'WRITE'; todos: unknown; slots_full?: boolean }
  | { type: 'READ' }
  | { type: 'CLEAR' }
  | { type: 'RELEASE' };

/**
 * What the last event gave (a READ or WRITE gives it to the model): the plan and a sentence, or why the write was
 * refused.
 */
export type TodoOutcome = { ok: true; todos: TodoItem[]; message: string } | { ok: false; error: string };

export interface TodoPlanContext {
  todos: TodoItem[];
  outcome: TodoOutcome;
}

/** "3 items (2 pending, 1 completed)", for a nonempty plan. */
function summary(todos: TodoItem[]): string {
  const counts = new Map<string, number>();
  for (const { status } of todos) counts.set(status, (counts.get(status) ?? 0) + 1);
  const parts = [...counts].map(([status, n]) => `${n} ${status}`);
  return `${todos.length} item${todos.length === 1 ? '' : 's'} (${parts.join(', ')})`;
}

const planOutcome = (todos: TodoItem[], message: string): TodoOutcome => ({ ok: true, todos, message });

/** What a read of an empty plan gives: one value, so a repeated read can see it is already given. */
const noPlanYet = planOutcome([], 'No plan yet.');

const parseWrite = (event: TodoPlanEvent) => parseTodoPlan(event.type === 'WRITE' ? event.todos : undefined);

function writeProblem(event: TodoPlanEvent): string | undefined {
  const parsed = parseWrite(event);
  return parsed.ok ? undefined : parsed.problem;
}

function parsedTodos(event: TodoPlanEvent): TodoItem[] {
  const parsed = parseWrite(event);
  return parsed.ok ? parsed.todos : [];
}

/**
 * One session's plan, kept in memory only (lost on restart). `empty` ↔ `stored`: a valid nonempty write
 * stores the plan (taking one of the tool's slots), `[]` or `/clear` empties it (freeing the slot), an
 * invalid write changes nothing and explains why. `released` is final.
 */
export const todoPlanMachine = setup({
  types: {
    context: {} as TodoPlanContext,
    events: {} as TodoPlanEvent,
  },
  actions: {
    storePlan: assign(({ event }) => {
      const todos = parsedTodos(event);
      return { todos, outcome: planOutcome(todos, `Plan saved: ${summary(todos)}.`) };
    }),
    emptyPlan: assign({ todos: [], outcome: planOutcome([], 'Plan cleared.') }),
    discardPlan: assign({ todos: [], outcome: planOutcome([], 'Plan discarded.') }),
    reportPlan: assign(({ context }) => ({
      outcome: context.todos.length
        ? planOutcome(context.todos, `Current plan: ${summary(context.todos)}.`)
        : noPlanYet,
    })),
    refuseInvalid: assign(({ event }) => ({
      outcome: { ok: false, error: `todo write refused, the previous plan is kept: ${writeProblem(event)}` },
    })),
    refuseNoSlot: assign({
      outcome: {
        ok: false,
        error:
          `todo write refused: ${TODO_PLAN_SLOTS} session plans are already stored and none is evicted. ` +
          'Write [] to a finished plan or /clear its session first.',
      },
    }),
  },
  guards: {
    isInvalid: ({ event }) => writeProblem(event) !== undefined,
    isEmptyList: ({ event }) => parsedTodos(event).length === 0,
    slotsFull: ({ event }) => event.type === 'WRITE' && event.slots_full === true,
    noPlanNotYetReported: ({ context }) => context.outcome !== noPlanYet,
  },
}).createMachine({
  id: 'todoPlan',
  context: { todos: [], outcome: noPlanYet },
  initial: 'empty',
  states: {
    empty: {
      on: {
        WRITE: [
          { guard: 'isInvalid', actions: 'refuseInvalid' },
          { guard: 'isEmptyList', actions: 'emptyPlan' },
          { guard: 'slotsFull', actions: 'refuseNoSlot' },
          { target: 'stored', actions: 'storePlan' },
        ],
        // Sessions without a plan share one machine, which most reads find already reporting no plan: without a
        // transition its snapshot is not copied.
        READ: { guard: 'noPlanNotYetReported', actions: 'reportPlan' },
        CLEAR: { actions: 'discardPlan' },
        RELEASE: 'released',
      },
    },
    stored: {
      on: {
        WRITE: [
          { guard: 'isInvalid', actions: 'refuseInvalid' },
          { guard: 'isEmptyList', target: 'empty', actions: 'emptyPlan' },
          { actions: 'storePlan' },
        ],
        READ: { actions: 'reportPlan' },
        CLEAR: { target: 'empty', actions: 'discardPlan' },
        RELEASE: { target: 'released', actions: 'discardPlan' },
      },
    },
    released: { type: 'final' },
  },
});

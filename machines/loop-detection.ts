import { assign, setup } from 'xstate';
import { z } from 'zod';
import { canonicalJson } from './canonical-json.js';

/** `agents.defaults.loop_detection`; a machine starts with these as input and takes a turn's own at `TURN_STARTED`. */
export const loopDetectionSettingsSchema = z.object({
  enabled: z.boolean(),
  // A warning on the very first call would be noise, so a streak needs at least two calls.
  repeat_threshold: z.number().int().min(2),
  critical_threshold: z.number().int().positive(),
  window_size: z.number().int().positive(),
});
export type LoopDetectionInput = z.infer<typeof loopDetectionSettingsSchema>;

export type ToolCalled = { type: 'TOOL_CALLED'; name: string; arguments: unknown };

/**
 * `TOOL_CALLED`: every tool call of the turn, in order, with the complete arguments the model sent.
 * `TURN_STARTED`: the machine serves another turn, with that turn's settings, from a fresh start; with
 * `first`, that turn's first call is counted in the same step, as a `TOOL_CALLED` after it would be.
 */
export type LoopDetectionEvent = ToolCalled | { type: 'TURN_STARTED'; settings: LoopDetectionInput; first?: ToolCalled };

/** Polling a subagent is expected to repeat, so it is not a loop and it breaks a streak. */
export const UNCOUNTED_TOOL = 'spawn_status';

/** The turn-local note the model reads once the streak reaches `repeat_threshold`. */
export function loopWarning(name: string, count: number): string {
  return `You have called ${name} ${count} times in a row with the same arguments. It is not making progress: change the arguments, use another tool, or answer with what you have.`;
}

export interface LoopDetectionContext {
  settings: LoopDetectionInput;
  /** Tool name and canonical arguments of the last counted call; null at the start or after a reset. */
  lastCall: string | null;
  lastName: string | null;
  /** Identical consecutive calls ending with the last one, never more than the window holds. */
  streak: number;
}

/** The guards and actions that read a call are only on `TOOL_CALLED` transitions. */
const called = (event: LoopDetectionEvent): ToolCalled => event as ToolCalled;

// The guards and the recording action of one step all read the same event's signature: computed once per call.
const signatures = new WeakMap<ToolCalled, string>();

function signature(event: ToolCalled): string {
  let known = signatures.get(event);
  if (known === undefined) signatures.set(event, (known = `${event.name}\u0000${canonicalJson(event.arguments)}`));
  return known;
}

function nextStreak(context: LoopDetectionContext, event: ToolCalled): number {
  const repeated = context.lastCall === signature(event);
  return Math.min(repeated ? context.streak + 1 : 1, context.settings.window_size);
}

/** The context after counting `call`: what `TOOL_CALLED` records, and `TURN_STARTED` for its first call. */
function counted(context: LoopDetectionContext, call: ToolCalled): LoopDetectionContext {
  return { settings: context.settings, lastCall: signature(call), lastName: call.name, streak: nextStreak(context, call) };
}

/**
 * Where `TURN_STARTED` leads: its transition has no guard, so the state and context depend on the event alone. A
 * disabled machine and an uncounted call leave the fresh context as it is; a counted first call can never reach
 * repeat_threshold (at least 2), so the state is `normal` (or `disabled`, through `normal`'s eventless move).
 * A host that has seen only a turn's first call can read its verdict here instead of stepping a machine.
 */
export function turnStart(settings: LoopDetectionInput, first?: ToolCalled): { state: 'normal' | 'disabled'; context: LoopDetectionContext } {
  const fresh: LoopDetectionContext = { settings, lastCall: null, lastName: null, streak: 0 };
  const counts = first !== undefined && settings.enabled && first.name !== UNCOUNTED_TOOL;
  return { state: settings.enabled ? 'normal' : 'disabled', context: counts ? counted(fresh, first) : fresh };
}

/**
 * Identical consecutive tool calls within one turn: `normal` → `warning` at `repeat_threshold` (the
 * host adds `loopWarning` for the model) → `stopped` at `critical_threshold` (the host ends the turn
 * with a final response). A different call goes back to `normal`. With `enabled: false` it stays
 * `disabled`. The host provides `warnModel` and `stopTurn`; both receive `{ name, count }`.
 */
export const loopDetectionMachine = setup({
  types: {
    input: {} as LoopDetectionInput,
    context: {} as LoopDetectionContext,
    events: {} as LoopDetectionEvent,
  },
  actions: {
    record: assign(({ context, event }) => counted(context, called(event))),
    resetStreak: assign({ lastCall: null, lastName: null, streak: 0 }),
    startOver: assign(({ event }) => {
      const { settings, first } = event as Extract<LoopDetectionEvent, { type: 'TURN_STARTED' }>;
      return turnStart(settings, first).context;
    }),
    // Placeholders: the hosting actor provides the real effects with machine.provide.
    warnModel: (_, _params: { name: string; count: number }) => {},
    stopTurn: (_, _params: { name: string; count: number }) => {},
  },
  guards: {
    isDisabled: ({ context }) => !context.settings.enabled,
    isUncounted: ({ event }) => called(event).name === UNCOUNTED_TOOL,
    reachesCritical: ({ context, event }) => nextStreak(context, called(event)) >= context.settings.critical_threshold,
    reachesRepeat: ({ context, event }) => nextStreak(context, called(event)) >= context.settings.repeat_threshold,
    isSameCall: ({ context, event }) => context.lastCall === signature(called(event)),
  },
}).createMachine({
  id: 'loopDetection',
  context: ({ input }) => ({ settings: input, lastCall: null, lastName: null, streak: 0 }),
  initial: 'normal',
  on: { TURN_STARTED: { target: '.normal', actions: 'startOver' } },
  states: {
    normal: {
      always: { guard: 'isDisabled', target: 'disabled' },
      on: {
        TOOL_CALLED: [
          { guard: 'isUncounted', actions: 'resetStreak' },
          { guard: 'reachesRepeat', target: 'warning', actions: 'record' },
          { actions: 'record' },
        ],
      },
    },
    warning: {
      entry: { type: 'warnModel', params: ({ context }) => ({ name: context.lastName ?? '', count: context.streak }) },
      on: {
        TOOL_CALLED: [
          { guard: 'isUncounted', target: 'normal', actions: 'resetStreak' },
          { guard: 'reachesCritical', target: 'stopped', actions: 'record' },
          { guard: 'isSameCall', actions: 'record' },
          { target: 'normal', actions: 'record' },
        ],
      },
    },
    stopped: {
      type: 'final',
      entry: { type: 'stopTurn', params: ({ context }) => ({ name: context.lastName ?? '', count: context.streak }) },
    },
    disabled: {},
  },
});

import { assign, setup } from 'xstate';
import * as z from 'zod';
import { canonicalJson } from './canonical-json.js';

/** `agents.defaults.loop_detection`, the machine's input. */
export const loopDetectionSettingsSchema = z.object({
  enabled: z.boolean(),
  // A warning on the very first call would be noise, so a streak needs at least two calls.
  repeat_threshold: z.number().int().min(2),
  critical_threshold: z.number().int().positive(),
  window_size: z.number().int().positive(),
});
export type LoopDetectionInput = z.infer<typeof loopDetectionSettingsSchema>;

/** Every tool call of the turn, in order, with the complete arguments the model sent. */
export type LoopDetectionEvent = { type: 'TOOL_CALLED'; name: string; arguments: unknown };

/** Polling a subagent is expected to repeat, so it is not a loop and it breaks a streak. */
export const UNCOUNTED_TOOL = 'spawn_status';

/** The turn-local note the model reads once the streak reaches `repeat_threshold`. */
export function loopWarning(name: string, count: number): string {
  return (
    `You have called ${name} ${count} times in a row with the same arguments. It is not making progress: ` +
    'change the arguments, use another tool, or answer with what you have.'
  );
}

export interface LoopDetectionContext {
  settings: LoopDetectionInput;
  /** Tool name and canonical arguments of the last counted call; null at the start or after a reset. */
  lastCall: string | null;
  lastName: string | null;
  /** Identical consecutive calls ending with the last one, never more than the window holds. */
  streak: number;
}

/** What the machine says about the call it has just seen: the state it is in now and the streak. */
export interface LoopVerdict {
  state: 'normal' | 'warning' | 'stopped' | 'disabled';
  streak: number;
}

const signature = (event: LoopDetectionEvent): string => `${event.name}\u0000${canonicalJson(event.arguments)}`;

function nextStreak(context: LoopDetectionContext, event: LoopDetectionEvent): number {
  const repeated = context.lastCall === signature(event);
  return Math.min(repeated ? context.streak + 1 : 1, context.settings.window_size);
}

const report = (state: LoopVerdict['state']) => ({
  type: 'report' as const,
  params: ({ context }: { context: LoopDetectionContext }) => ({ state, streak: context.streak }),
});

/**
 * Identical consecutive tool calls within one turn: `normal` → `warning` at `repeat_threshold` (the turn adds
 * `loopWarning` for the model) → `stopped` at `critical_threshold` (the turn ends with a final response). A
 * different call goes back to `normal`. With `enabled: false` it stays `disabled`. After every call it `report`s its
 * verdict; the turn that spawns it provides `report` as an answer to itself.
 */
export const loopDetectionMachine = setup({
  types: {
    input: {} as LoopDetectionInput,
    context: {} as LoopDetectionContext,
    events: {} as LoopDetectionEvent,
  },
  actions: {
    record: assign(({ context, event }) => ({
      lastCall: signature(event),
      lastName: event.name,
      streak: nextStreak(context, event),
    })),
    resetStreak: assign({ lastCall: null, lastName: null, streak: 0 }),
    report: (_, _verdict: LoopVerdict) => {},
  },
  guards: {
    isDisabled: ({ context }) => !context.settings.enabled,
    isUncounted: ({ event }) => event.name === UNCOUNTED_TOOL,
    reachesCritical: ({ context, event }) => nextStreak(context, event) >= context.settings.critical_threshold,
    reachesRepeat: ({ context, event }) => nextStreak(context, event) >= context.settings.repeat_threshold,
    isSameCall: ({ context, event }) => context.lastCall === signature(event),
  },
}).createMachine({
  id: 'loopDetection',
  context: ({ input }) => ({ settings: input, lastCall: null, lastName: null, streak: 0 }),
  initial: 'normal',
  states: {
    normal: {
      always: { guard: 'isDisabled', target: 'disabled' },
      on: {
        TOOL_CALLED: [
          { guard: 'isUncounted', actions: ['resetStreak', report('normal')] },
          { guard: 'reachesRepeat', target: 'warning', actions: ['record', report('warning')] },
          { actions: ['record', report('normal')] },
        ],
      },
    },
    warning: {
      on: {
        TOOL_CALLED: [
          { guard: 'isUncounted', target: 'normal', actions: ['resetStreak', report('normal')] },
          { guard: 'reachesCritical', target: 'stopped', actions: ['record', report('stopped')] },
          { guard: 'isSameCall', actions: ['record', report('warning')] },
          { target: 'normal', actions: ['record', report('normal')] },
        ],
      },
    },
    stopped: { type: 'final' },
    disabled: {
      on: { TOOL_CALLED: { actions: report('disabled') } },
    },
  },
});

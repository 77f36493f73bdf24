import { assign, setup } from 'xstate';

/**
 * One machine per session, fed by the chat-command parser and the turn runner:
 * - `USE`: `/use <skill>` (no message) arms; `/use <skill> <message>` forces the skill for that request only.
 * - `USE_CLEAR`: `/use clear`. - `SESSION_CLEARED`: `/clear` succeeded.
 * - `MESSAGE`: an ordinary message of the session is about to become a turn.
 */
export type SkillOverrideEvent =
  | { type: 'USE'; skill: string; message?: string }
  | { type: 'USE_CLEAR' }
  | { type: 'MESSAGE' }
  | { type: 'SESSION_CLEARED' };

export interface SkillOverrideContext {
  /** The skill waiting for the next message, while `armed`. */
  armed: string | null;
  /** The skill that applies to the request just received (after `MESSAGE` or a one-shot `USE`), or null. */
  applies: string | null;
}

const hasMessage = (event: SkillOverrideEvent): boolean => event.type === 'USE' && (event.message ?? '').trim() !== '';
const skillOf = (event: SkillOverrideEvent): string | null => (event.type === 'USE' ? event.skill : null);

/**
 * `none` ↔ `armed`. A one-shot `/use <skill> <message>` never changes the state: in `armed` the forced
 * skill wins for that request and the armed one still waits for the next ordinary message.
 */
export const skillOverrideMachine = setup({
  types: {
    context: {} as SkillOverrideContext,
    events: {} as SkillOverrideEvent,
  },
  actions: {
    arm: assign(({ event }) => ({ armed: skillOf(event), applies: null })),
    forceForRequest: assign(({ event }) => ({ applies: skillOf(event) })),
    consumeArmed: assign(({ context }) => ({ armed: null, applies: context.armed })),
    noOverride: assign({ applies: null }),
    disarm: assign({ armed: null, applies: null }),
  },
  guards: {
    withMessage: ({ event }) => hasMessage(event),
    skillApplies: ({ context }) => context.applies !== null,
  },
}).createMachine({
  id: 'skillOverride',
  context: { armed: null, applies: null },
  initial: 'none',
  states: {
    none: {
      on: {
        USE: [
          { guard: 'withMessage', actions: 'forceForRequest' },
          { target: 'armed', actions: 'arm' },
        ],
        // Most messages find nothing to clear: without a transition the snapshot is not copied.
        MESSAGE: { guard: 'skillApplies', actions: 'noOverride' },
        USE_CLEAR: { actions: 'disarm' },
        SESSION_CLEARED: { actions: 'disarm' },
      },
    },
    armed: {
      on: {
        USE: [{ guard: 'withMessage', actions: 'forceForRequest' }, { actions: 'arm' }],
        MESSAGE: { target: 'none', actions: 'consumeArmed' },
        USE_CLEAR: { target: 'none', actions: 'disarm' },
        SESSION_CLEARED: { target: 'none', actions: 'disarm' },
      },
    },
  },
});

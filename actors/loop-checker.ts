import { createActor, type Actor } from 'xstate';
import type { ToolCall } from '../bus/index.js';
import { loopDetectionMachine, turnStart, type LoopDetectionInput, type ToolCalled } from '../machines/loop-detection.js';
import type { LoopVerdict } from '../machines/turn.js';

export interface LoopChecker {
  check(call: ToolCall): LoopVerdict;
  /** The turn is over: the machine goes back to the idle ones, or stops if it ended the turn. */
  release(): void;
}

// Machines of finished turns wait here for the next turn, which starts one over with `TURN_STARTED`: starting a
// machine costs twice a turn's checks. As many wait as turns ran at once, up to a bound.
const idle: Actor<typeof loopDetectionMachine>[] = [];
const MAX_IDLE = 256;

const called = (call: ToolCall): ToolCalled => ({ type: 'TOOL_CALLED', name: call.name, arguments: call.arguments });

/** A machine for a new turn, which has seen `first`: a reused one starts over and counts it in one step. */
function started(settings: LoopDetectionInput, first: ToolCalled): Actor<typeof loopDetectionMachine> {
  const reused = idle.pop();
  if (reused) {
    reused.send({ type: 'TURN_STARTED', settings, first });
    return reused;
  }
  const actor = createActor(loopDetectionMachine, { input: settings });
  actor.subscribe({ error: () => {} });
  actor.start();
  actor.send(first);
  return actor;
}

/**
 * One turn's loop-detection machine as a live actor: each call is sent to it and its state read back.
 * A live actor keeps its state, where a pure `transition()` resolves the whole machine again for every call.
 * A turn's first call needs no machine: `TURN_STARTED` has no guard, so the machine's `turnStart` gives its
 * verdict, and a turn with one tool call (most of them) steps no machine at all. A second call takes one, which
 * starts over with the first call and then counts the second.
 */
export function loopChecker(settings: LoopDetectionInput): LoopChecker {
  let first: ToolCalled | undefined;
  let actor: Actor<typeof loopDetectionMachine> | undefined;
  let released = false;
  return {
    check(call) {
      if (!first) {
        first = called(call);
        const { state, context } = turnStart(settings, first);
        return { state, streak: context.streak };
      }
      actor ??= started(settings, first);
      actor.send(called(call));
      const snapshot = actor.getSnapshot();
      return { state: snapshot.value, streak: snapshot.context.streak };
    },
    release() {
      if (released || !actor) return;
      released = true;
      if (actor.getSnapshot().status === 'active' && idle.length < MAX_IDLE) idle.push(actor);
      else actor.stop();
    },
  };
}

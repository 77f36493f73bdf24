import { createActor } from 'xstate';
import type { ToolCall } from '../bus/index.js';
import { loopDetectionMachine, type LoopDetectionInput } from '../machines/loop-detection.js';
import type { LoopVerdict } from '../machines/turn.js';

export interface LoopChecker {
  check(call: ToolCall): LoopVerdict;
  stop(): void;
}

/**
 * One turn's loop-detection machine as a live actor: each call is sent to it and its state read back.
 * A live actor answers in microseconds, where a pure `transition()` of the same machine costs ~100 µs.
 */
export function loopChecker(settings: LoopDetectionInput, id?: string): LoopChecker {
  const actor = createActor(loopDetectionMachine, { input: settings, ...(id ? { id } : {}) });
  actor.subscribe({ error: () => {} });
  actor.start();
  return {
    check(call) {
      actor.send({ type: 'TOOL_CALLED', name: call.name, arguments: call.arguments });
      const snapshot = actor.getSnapshot();
      return { state: snapshot.value, streak: snapshot.context.streak };
    },
    stop: () => actor.stop(),
  };
}

import { fromCallback, type CallbackActorLogic } from 'xstate';
import type { ChatResponse, ToolCall } from '../bus/index.js';
import type { BuiltPrompt, LoopCheck, LoopVerdict, ModelCall, ToolOutcome, TurnAnswer, TurnRef, TurnRequest } from '../machines/turn.js';

/** How a host does a turn's work; `turn` tells a host that serves many turns which one asks. */
export interface TurnWork {
  buildPrompt(turn: TurnRef): BuiltPrompt | Promise<BuiltPrompt>;
  callModel(call: ModelCall, signal: AbortSignal, turn: TurnRef): Promise<ChatResponse>;
  checkLoop(call: ToolCall, turn: TurnRef): LoopVerdict;
  runTool(call: ToolCall, signal: AbortSignal, turn: TurnRef): Promise<ToolOutcome>;
}

/** Hands an answer to its turn; a host that publishes the turn's moves notes the cause here. */
export type Deliver = (turn: TurnRef, answer: TurnAnswer) => void;

const send: Deliver = (turn, answer) => turn.send(answer);

/** Starts `work` now and settles with its value or with what it threw, synchronously or not. */
function attempt<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The logic of a turn's effects actor: it starts what a turn machine requests at once and answers when the work
 * settles, always in a later microtask (as an invoked promise would), so an answer never reaches a turn in the
 * middle of its previous step. The tool call an answer leads to is judged by loop detection before the answer
 * goes out, in call order as before. One actor can serve every turn of a process; each turn has one abort
 * signal, which `CANCEL` aborts.
 */
export function turnEffects(work: TurnWork, deliver: Deliver = send): CallbackActorLogic<TurnRequest> {
  const controllers = new WeakMap<TurnRef, AbortController>();
  const signalOf = (turn: TurnRef): AbortSignal => {
    let controller = controllers.get(turn);
    if (!controller) controllers.set(turn, (controller = new AbortController()));
    return controller.signal;
  };
  // A turn that ended (stopped, aborted, failed) takes no more answers.
  const reply = (turn: TurnRef, answer: TurnAnswer): void => {
    if (turn.getSnapshot().status === 'active') deliver(turn, answer);
  };
  const answer = <T>(turn: TurnRef, settled: Promise<T>, wrap: (value: T) => TurnAnswer): void => {
    settled.then((value) => reply(turn, wrap(value)), (error: unknown) => reply(turn, { type: 'FAILED', error }));
  };
  // A check that throws fails the turn once the answer it rides on is recorded. A turn that ended judges nothing.
  const judged = (turn: TurnRef, call: ToolCall | undefined): LoopCheck | undefined => {
    if (!call || turn.getSnapshot().status !== 'active') return undefined;
    try {
      return work.checkLoop(call, turn);
    } catch (error) {
      return { state: 'failed', error };
    }
  };
  const handle = (request: TurnRequest): void => {
    const { turn } = request;
    switch (request.type) {
      case 'BUILD_PROMPT':
        return answer(turn, attempt(() => work.buildPrompt(turn)), (prompt) => ({ type: 'PROMPT_BUILT', prompt }));
      case 'CALL_MODEL':
        return answer(turn, attempt(() => work.callModel(request.call, signalOf(turn), turn)), (model) => ({ type: 'MODEL_ANSWERED', answer: model, loop: judged(turn, model.tool_calls[0]) }));
      case 'RUN_TOOL':
        return answer(turn, attempt(() => work.runTool(request.call, signalOf(turn), turn)), (outcome) => ({ type: 'TOOL_RAN', outcome, loop: judged(turn, request.next) }));
      case 'CANCEL':
        return controllers.get(turn)?.abort();
    }
  };
  return fromCallback<TurnRequest>(({ receive }) => receive(handle));
}

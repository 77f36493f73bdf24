import type { HookDecision, ToolCall } from '../../bus/index.js';
import type { ApprovalAnswer } from './approval-desk.js';
import type { HookSet } from './hook-set.js';
import type { Decider, DecisionSource } from './turn-hooks.js';

/** The user in the chat as the last approver of the calls that need it (`tools.<name>.require_approval`). */
export interface ChatApprover {
  required(call: ToolCall): boolean;
  ask(call: ToolCall, signal: AbortSignal): Promise<ApprovalAnswer>;
}

const asDecision = (answer: ApprovalAnswer): HookDecision => ({
  action: answer.approved ? 'continue' : 'deny_tool',
  reason: answer.reason,
});

/** The live hooks of a point in their order, and for approvals the chat after them when the tool needs it. */
export function liveDecisions(set: HookSet, chat: ChatApprover | undefined): DecisionSource {
  return {
    deciders(point, _key, call) {
      const deciders: Decider[] = set
        .interceptors(point)
        .map((hook) => ({ hook: hook.name, decide: (input, signal) => set.ask(hook, input, signal) }));
      if (point === 'approve_tool' && call && chat?.required(call)) {
        deciders.push({
          hook: 'chat',
          decide: async (input, signal) =>
            asDecision(await chat.ask(input.point === 'approve_tool' ? input.call : call, signal)),
        });
      }
      return deciders;
    },
  };
}

import type { ToolSpec } from '../adapters/providers/provider.js';
import type { BuiltPrompt } from '../machines/turn.js';
import { estimateFrame, estimateTokens } from './token-estimate.js';

/** Room kept for the answer when `max_tokens` is unset: the messages-style APIs' usual default. */
export const DEFAULT_ANSWER_TOKENS = 4096;

export interface ContextBudget {
  /** `agents.defaults.context_window`: the model's whole window, in tokens. */
  contextWindow: number;
  /** The answer's room (`max_tokens`), kept free in the window. */
  answerTokens: number;
}

/**
 * The prompt with its oldest history left out, whole turns at a time (a turn begins at a user message, so no tool
 * call is parted from its result), until system prompt, tools, messages and the answer's room fit the window by
 * estimate. The newest message (the request) always stays; the summary in the system prompt covers older turns.
 */
export function fitContextWindow(prompt: BuiltPrompt, tools: readonly ToolSpec[], budget: ContextBudget): BuiltPrompt {
  const room = budget.contextWindow - budget.answerTokens - estimateFrame(prompt.system, tools);
  let messages = prompt.messages;
  while (messages.length > 1 && estimateTokens(messages) > room) {
    const next = messages.findIndex((m, i) => i > 0 && m.role === 'user');
    messages = messages.slice(next > 0 ? next : messages.length - 1);
  }
  return messages === prompt.messages ? prompt : { ...prompt, messages };
}

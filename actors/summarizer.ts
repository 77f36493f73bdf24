import type { ModelRouter } from '../adapters/providers/router.js';
import type { Correlation, EventDraft } from '../bus/index.js';
import type { TurnHistory } from '../machines/turn.js';
import type { Config } from '../store/config/index.js';
import { estimateTokens } from './token-estimate.js';

/** A session's history is summarized once it holds this many messages (unless `summarize_message_threshold` says)… */
export const SUMMARY_TRIGGER = 60;
/** …keeping at most this many of the newest verbatim (a third of a lower trigger, so that one still folds some). */
export const SUMMARY_KEEP = 20;

/**
 * When a history is long. `messages`: summarized once it holds more than this many (the peer runtime's
 * `summarize_message_threshold`); `tokens`: or once its estimate passes this many (`context_window` ×
 * `summarize_token_percent` / 100, with a context window set).
 */
export interface SummaryLimits {
  messages: number;
  tokens?: number;
}

export const DEFAULT_LIMITS: SummaryLimits = { messages: SUMMARY_TRIGGER - 1 };

/** The peer runtime's default share of the context window at which a history is summarized. */
const DEFAULT_TOKEN_PERCENT = 75;

export function summaryLimits(defaults: Config['agents']['defaults']): SummaryLimits {
  const messages = defaults.summarize_message_threshold ?? DEFAULT_LIMITS.messages;
  if (defaults.context_window === undefined) return { messages };
  const percent = defaults.summarize_token_percent ?? DEFAULT_TOKEN_PERCENT;
  return { messages, tokens: Math.floor((defaults.context_window * percent) / 100) };
}

const keptOf = (limits: SummaryLimits): number => Math.min(SUMMARY_KEEP, Math.ceil((limits.messages + 1) / 3));
/**
 * While the model cannot summarize, history still stops growing at twice the trigger: the oldest messages beyond
 * the trigger are dropped (the earlier summary stays), so a session's memory and its next load stay bounded.
 */
const capOf = (limits: SummaryLimits): number => 2 * (limits.messages + 1);

/**
 * Where the verbatim part begins: the newest `keptOf` messages, fewer while they pass half the token limit (so a
 * summary frees room), moved on to the start of a turn (a user message), so no tool call is parted from its result.
 */
function cutOf(messages: TurnHistory['messages'], limits: SummaryLimits): number {
  let kept = Math.min(keptOf(limits), messages.length);
  if (limits.tokens !== undefined) while (kept > 0 && estimateTokens(messages.slice(-kept)) > limits.tokens / 2) kept--;
  const cut = messages.length - kept;
  const start = messages.findIndex((m, i) => i >= cut && m.role === 'user');
  return start === -1 ? messages.length : start;
}

const INSTRUCTIONS =
  'Summarize the conversation below for your own later use: the facts, decisions, open tasks and preferences that ' +
  'matter for continuing it. Be concise (at most 300 words), write in the third person, and keep names, numbers and ' +
  'file paths exactly. If an earlier summary is given, fold it in.';

/** Whether the history has grown long enough to be compacted before the next turn (and has older turns to fold). */
export function isLong(history: TurnHistory, limits: SummaryLimits = DEFAULT_LIMITS): boolean {
  const { messages } = history;
  const over =
    messages.length > limits.messages || (limits.tokens !== undefined && estimateTokens(messages) > limits.tokens);
  return over && cutOf(messages, limits) > 0;
}

export interface CompactPorts {
  router: ModelRouter;
  modelName: string;
  correlation: Correlation;
  publish: (draft: EventDraft<'session.compacted'>) => void;
  limits?: SummaryLimits;
}

/**
 * Folds older messages into a summary the model writes and records the checkpoint as `session.compacted` (the summary
 * and the messages kept), from which the history loads from then on. When the model fails the history is kept as it
 * is, unless it reached twice the trigger: then it is cut to its newest trigger's worth under the earlier summary.
 */
export async function compactIfLong(history: TurnHistory, ports: CompactPorts): Promise<TurnHistory> {
  const limits = ports.limits ?? DEFAULT_LIMITS;
  if (!isLong(history, limits)) return history;
  const cut = cutOf(history.messages, limits);
  const older = history.messages.slice(0, cut);
  const transcript = older.map((message) => `${message.role}: ${message.content}`).join('\n');
  const earlier = history.summary ? `Earlier summary:\n${history.summary}\n\n` : '';
  const summary = await ports.router
    .chat(
      ports.modelName,
      {
        system: INSTRUCTIONS,
        messages: [{ role: 'user', content: `${earlier}Conversation:\n${transcript}` }],
        tools: [],
        stream: false,
      },
      { correlation: ports.correlation },
    )
    .then(
      (answer) => answer.text.trim(),
      () => '',
    );
  const compacted: TurnHistory | undefined = summary
    ? { summary, messages: history.messages.slice(cut) }
    : history.messages.length >= capOf(limits)
      ? {
          ...(history.summary !== undefined ? { summary: history.summary } : {}),
          messages: history.messages.slice(-(limits.messages + 1)),
        }
      : undefined;
  if (!compacted) return history;
  ports.publish({ ...ports.correlation, type: 'session.compacted', data: compacted });
  return compacted;
}

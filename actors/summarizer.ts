import type { ModelRouter } from '../adapters/providers/router.js';
import type { Correlation, EventDraft } from '../bus/index.js';
import type { TurnHistory } from '../machines/turn.js';

/** A session's history is summarized once it holds this many messages… */
export const SUMMARY_TRIGGER = 60;
/** …keeping this many of the newest verbatim. */
export const SUMMARY_KEEP = 20;
/**
 * While the model cannot summarize, history still stops growing here: the oldest messages beyond `SUMMARY_TRIGGER`
 * are dropped (the earlier summary stays), so a session's memory and its next load stay bounded.
 */
export const HISTORY_CAP = 2 * SUMMARY_TRIGGER;

const INSTRUCTIONS =
  'Summarize the conversation below for your own later use: the facts, decisions, open tasks and preferences that ' +
  'matter for continuing it. Be concise (at most 300 words), write in the third person, and keep names, numbers and ' +
  'file paths exactly. If an earlier summary is given, fold it in.';

/** Whether the history has grown long enough to be compacted before the next turn. */
export const isLong = (history: TurnHistory): boolean => history.messages.length >= SUMMARY_TRIGGER;

export interface CompactPorts {
  router: ModelRouter;
  modelName: string;
  correlation: Correlation;
  publish: (draft: EventDraft<'session.compacted'>) => void;
}

/**
 * Folds older messages into a summary the model writes and records the checkpoint as `session.compacted` (the summary
 * and the messages kept), from which the history loads from then on. When the model fails the history is kept as it
 * is, unless it reached `HISTORY_CAP`: then it is cut to its newest `SUMMARY_TRIGGER` messages under the earlier summary.
 */
export async function compactIfLong(history: TurnHistory, ports: CompactPorts): Promise<TurnHistory> {
  if (!isLong(history)) return history;
  const older = history.messages.slice(0, -SUMMARY_KEEP);
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
    ? { summary, messages: history.messages.slice(-SUMMARY_KEEP) }
    : history.messages.length >= HISTORY_CAP
      ? {
          ...(history.summary !== undefined ? { summary: history.summary } : {}),
          messages: history.messages.slice(-SUMMARY_TRIGGER),
        }
      : undefined;
  if (!compacted) return history;
  ports.publish({ ...ports.correlation, type: 'session.compacted', data: compacted });
  return compacted;
}

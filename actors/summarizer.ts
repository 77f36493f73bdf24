import type { Bus, Correlation, Envelope } from '../bus/index.js';
import type { ModelRouter } from '../adapters/providers/router.js';
import type { SessionHistory } from '../store/log/history.js';

/** A session's history is summarized once it holds this many messages… */
export const SUMMARY_TRIGGER = 60;
/** …keeping this many of the newest verbatim. */
export const SUMMARY_KEEP = 20;

const INSTRUCTIONS =
  'Summarize the conversation below for your own later use: the facts, decisions, open tasks and preferences that ' +
  'matter for continuing it. Be concise (at most 300 words), write in the third person, and keep names, numbers and ' +
  'file paths exactly. If an earlier summary is given, fold it in.';

/** Whether the history has grown long enough to be summarized before the next turn. */
export const isLong = (history: SessionHistory): boolean => history.messages.length >= SUMMARY_TRIGGER;

/**
 * Folds older messages into a summary written by the model, recorded as `summary.written`; the history
 * projection then drops what the summary covers. A failure leaves the history as it was.
 */
export async function summarizeIfLong(
  history: SessionHistory,
  ports: { bus: Bus; router: ModelRouter; modelName: string; correlation: Correlation },
): Promise<Envelope<'summary.written'> | undefined> {
  if (!isLong(history)) return undefined;
  const older = history.messages.slice(0, -SUMMARY_KEEP);
  const transcript = older.map(({ message }) => `${message.role}: ${message.content}`).join('\n');
  const earlier = history.summary ? `Earlier summary:\n${history.summary}\n\n` : '';
  try {
    const answer = await ports.router.chat(
      ports.modelName,
      { system: INSTRUCTIONS, messages: [{ role: 'user', content: `${earlier}Conversation:\n${transcript}` }], tools: [], stream: false },
      { correlation: ports.correlation },
    );
    if (!answer.text.trim()) return undefined;
    return ports.bus.publish({ ...ports.correlation, type: 'summary.written', data: { summary: answer.text.trim(), through_seq: older.at(-1)!.seq } });
  } catch {
    return undefined;
  }
}

import type { Envelope } from '../../../bus/index.js';
import { emptyHistory, foldHistory, HISTORY_TYPES } from '../../../store/log/history.js';
import type { EventStore } from '../../../store/log/event-store.js';
import type { PriceOf } from '../../../store/usage/prices.js';
import { ModelTally, UsageFold } from '../../../store/usage/usage-log.js';
import type { Step, Transcript, TranscriptMessage, TurnRow } from '../../../bus/api-shapes.js';

/** Tool output and arguments beyond this are cut for the page; the turn view has them whole. */
const SHOWN_CHARS = 4000;
const MESSAGES_SHOWN = 200;
const STEP_TYPES = 'provider.responded,tool.requested,tool.completed';

const cut = (text: string): string => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text);

const OUTCOMES: Partial<Record<string, TranscriptMessage['outcome']>> = {
  'turn.completed': 'completed',
  'turn.stopped': 'stopped',
  'turn.failed': 'failed',
};

/** A turn's steps, in order; a tool call's result joins its request. */
export function stepsOf(events: Envelope[]): Step[] {
  const steps: Step[] = [];
  const calls = new Map<string, Extract<Step, { kind: 'tool' }>>();
  for (const event of events) {
    if (event.type === 'provider.responded' && event.data.tool_calls.length > 0 && event.data.text.trim() !== '') {
      steps.push({ kind: 'text', text: event.data.text });
    } else if (event.type === 'tool.requested') {
      const step = {
        kind: 'tool' as const,
        call_id: event.data.call_id,
        name: event.data.name,
        arguments: cut(JSON.stringify(event.data.arguments)),
      };
      calls.set(step.call_id, step);
      steps.push(step);
    } else if (event.type === 'tool.completed') {
      const step = calls.get(event.data.call_id);
      if (step)
        Object.assign(step, { ok: event.data.ok, content: cut(event.data.content), chars: event.data.content.length });
    }
  }
  return steps;
}

/**
 * A session's conversation as the model sees it (the history projection its prompts are built from, so
 * `/clear` and summaries apply), each message with its turn, and each turn's steps.
 */
export function transcriptOf(log: EventStore, session: string): Transcript {
  const events = log.read({ session, type: HISTORY_TYPES });
  const bySeq = new Map(events.map((event) => [event.seq, event]));
  const history = events.reduce(foldHistory, emptyHistory());
  const messages = history.messages.slice(-MESSAGES_SHOWN).map(({ seq, message }): TranscriptMessage => {
    const event = bySeq.get(seq);
    const outcome = event ? OUTCOMES[event.type] : undefined;
    return {
      seq,
      at: event?.at ?? 0,
      ...(event?.turn ? { turn: event.turn } : {}),
      message,
      ...(outcome ? { outcome } : {}),
    };
  });
  const turns = [...new Set(messages.flatMap((m) => (m.turn ? [m.turn] : [])))];
  const steps = Object.fromEntries(turns.map((turn) => [turn, stepsOf(log.read({ turn, type: STEP_TYPES }))]));
  return { session, summary: history.summary ?? null, messages, steps };
}

const ENDINGS: Partial<Record<string, TurnRow['outcome']>> = { ...OUTCOMES, 'turn.aborted': 'aborted' };
const TURN_TYPES =
  'turn.started,turn.completed,turn.stopped,turn.failed,turn.aborted,provider.requested,provider.responded';
const TURNS_SHOWN = 500;

/**
 * Every turn of a session (the newest 500), newest first, each with its answers' tokens and their cost at `priceOf`'s
 * prices.
 */
export function turnsOf(log: EventStore, session: string, priceOf: PriceOf): TurnRow[] {
  const rows = new Map<
    string,
    {
      row: Omit<TurnRow, 'input_tokens' | 'output_tokens' | 'cost_usd' | 'unpriced_calls' | 'unreported_calls'>;
      usage: ModelTally;
    }
  >();
  const usage = new UsageFold();
  for (const event of log.iterate({ session, type: TURN_TYPES })) {
    const turn = event.turn;
    if (!turn) continue;
    if (event.type === 'turn.started') {
      rows.set(turn, {
        row: { turn, at: event.at, text: event.data.text, outcome: 'running', model_calls: 0 },
        usage: new ModelTally(),
      });
      continue;
    }
    const record = usage.apply(event);
    const entry = rows.get(turn);
    if (!entry) continue;
    if (record) {
      entry.row.model_calls += 1;
      entry.usage.add(record);
    } else if (event.type !== 'provider.requested') {
      entry.row.outcome = ENDINGS[event.type] ?? entry.row.outcome;
      entry.row.ms = event.at - entry.row.at;
    }
  }
  return [...rows.values()]
    .reverse()
    .slice(0, TURNS_SHOWN)
    .map(({ row, usage: tally }) => {
      const priced = tally.priced(priceOf);
      return {
        ...row,
        input_tokens: priced.tokens.input,
        output_tokens: priced.tokens.output,
        cost_usd: priced.cost_usd,
        unpriced_calls: priced.unpriced_calls,
        unreported_calls: priced.unreported_calls,
      };
    });
}

import type { Envelope } from '../../../bus/index.js';

/** One bar of a turn's waterfall; times are ms from `turn.started`. */
export type Span = { kind: 'model' | 'chunks' | 'tool'; label: string; start: number; end: number; ms: number; ok: boolean };

type Open = { kind: Span['kind']; label: string; at: number };

function close(open: Open | undefined, at: number, origin: number, ok: boolean): Span | undefined {
  if (!open) return undefined;
  return { kind: open.kind, label: open.label, start: open.at - origin, end: at - origin, ms: at - open.at, ok };
}

/**
 * Folds a turn's events into spans: each model call from request to answer, its streamed chunks from the
 * first to the last, and each tool call from request to result (matched by call id).
 */
export function spansOf(events: Envelope[]): Span[] {
  const origin = events.find((e) => e.type === 'turn.started')?.at ?? events[0]?.at ?? 0;
  const spans: Span[] = [];
  const tools = new Map<string, Open>();
  let model: Open | undefined;
  let chunks: { first: number; last: number; count: number } | undefined;
  const push = (span: Span | undefined) => span && spans.push(span);
  for (const event of events) {
    switch (event.type) {
      case 'provider.requested':
        model = { kind: 'model', label: `model call ${spans.filter((s) => s.kind === 'model').length + 1}`, at: event.at };
        chunks = undefined;
        break;
      case 'provider.chunk':
        chunks = chunks ? { ...chunks, last: event.at, count: chunks.count + 1 } : { first: event.at, last: event.at, count: 1 };
        break;
      case 'provider.responded':
      case 'provider.failed':
        push(close(model, event.at, origin, event.type === 'provider.responded'));
        if (chunks) push(close({ kind: 'chunks', label: `${chunks.count} chunks`, at: chunks.first }, chunks.last, origin, true));
        model = undefined;
        chunks = undefined;
        break;
      case 'tool.requested':
        tools.set(event.data.call_id, { kind: 'tool', label: event.data.name, at: event.at });
        break;
      case 'tool.completed':
        push(close(tools.get(event.data.call_id), event.at, origin, event.data.ok));
        tools.delete(event.data.call_id);
        break;
      default:
        break;
    }
  }
  return spans;
}

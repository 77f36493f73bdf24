import type { Envelope } from '../../../bus/index.js';
import type { ChildTimeline } from '../../../store/log/child-timelines.js';
import { costOf, roundUsd, type PriceOf } from '../../../store/usage/prices.js';
import { tokensOf } from '../../../store/usage/usage-log.js';
import type { CallUsage, ChildTimelineView, Span } from '../../../bus/api-shapes.js';

type Bar = Pick<Span, 'label' | 'start' | 'end' | 'ms' | 'ok'>;

const ARGUMENTS_SHOWN = 2000;

function bar(label: string, from: number, to: number, origin: number, ok: boolean): Bar {
  return { label, start: from - origin, end: to - origin, ms: to - from, ok };
}

type OpenModel = { at: number; model: string; iteration: number; number: number };

/**
 * An answer's tokens and, when the model has a price, their cost: the same pricing `/api/usage` and `tern replay` use.
 */
function callUsage(
  usage: NonNullable<Envelope<'provider.responded'>['data']['usage']>,
  model: string,
  priceOf: PriceOf,
): CallUsage {
  const tokens = tokensOf(usage);
  const price = priceOf(model);
  return {
    input_tokens: tokens.input,
    cached_input_tokens: tokens.cached,
    output_tokens: tokens.output,
    reasoning_tokens: tokens.reasoning,
    ...(price ? { cost_usd: roundUsd(costOf(tokens, price)) } : {}),
  };
}

const turnStart = (events: readonly Envelope[]): number =>
  events.find((e) => e.type === 'turn.started')?.at ?? events[0]?.at ?? 0;

/**
 * Folds a turn's events into spans: building the prompt, each model call from request to answer with its
 * tokens, its streamed chunks from the first to the last, and each tool call from request to result
 * (matched by call id) with its arguments and result size. Times are ms from `origin` (the turn's start); a model
 * call's cost at `priceOf`'s prices.
 */
export function spansOf(events: Envelope[], priceOf: PriceOf, origin = turnStart(events)): Span[] {
  const started = turnStart(events);
  const spans: Span[] = [];
  const tools = new Map<string, Envelope<'tool.requested'>>();
  let model: OpenModel | undefined;
  let models = 0;
  let chunks: { first: number; last: number; count: number } | undefined;
  for (const event of events) {
    switch (event.type) {
      case 'prompt.built':
        spans.push({
          kind: 'prompt',
          ...bar('building prompt', started, event.at, origin, true),
          messages: event.data.messages.length,
          tools: event.data.tools.length,
        });
        break;
      case 'provider.requested':
        model = { at: event.at, model: event.data.model_name, iteration: event.data.iteration, number: ++models };
        chunks = undefined;
        break;
      case 'provider.chunk':
        chunks = chunks
          ? { ...chunks, last: event.at, count: chunks.count + 1 }
          : { first: event.at, last: event.at, count: 1 };
        break;
      case 'provider.responded':
      case 'provider.failed': {
        if (model) {
          const answered = event.type === 'provider.responded' ? event.data : undefined;
          spans.push({
            kind: 'model',
            ...bar(`model call ${model.number}`, model.at, event.at, origin, answered !== undefined),
            model: model.model,
            iteration: model.iteration,
            tool_calls: answered?.tool_calls.length ?? 0,
            ...(answered?.usage ? { usage: callUsage(answered.usage, model.model, priceOf) } : {}),
            ...(event.type === 'provider.failed' ? { error: `${event.data.message} (${event.data.code})` } : {}),
          });
        }
        if (chunks)
          spans.push({
            kind: 'chunks',
            ...bar(`${chunks.count} chunk${chunks.count === 1 ? '' : 's'}`, chunks.first, chunks.last, origin, true),
            count: chunks.count,
          });
        model = undefined;
        chunks = undefined;
        break;
      }
      case 'tool.requested':
        tools.set(event.data.call_id, event);
        break;
      case 'tool.completed': {
        const requested = tools.get(event.data.call_id);
        tools.delete(event.data.call_id);
        if (!requested) break;
        const args = JSON.stringify(requested.data.arguments);
        spans.push({
          kind: 'tool',
          ...bar(requested.data.name, requested.at, event.at, origin, event.data.ok),
          call_id: event.data.call_id,
          name: requested.data.name,
          arguments: args.length > ARGUMENTS_SHOWN ? `${args.slice(0, ARGUMENTS_SHOWN)}…` : args,
          result_chars: event.data.content.length,
          ...(event.data.ok ? {} : { error: event.data.content.slice(0, 300) }),
        });
        break;
      }
      default:
        break;
    }
  }
  return spans;
}

const ENDINGS: Record<string, string> = {
  'turn.completed': 'completed',
  'turn.stopped': 'stopped',
  'turn.failed': 'failed',
  'turn.aborted': 'aborted',
};

/** The subagents of a turn as the turn view nests them: each one's bar and spans, timed from the parent's `origin`. */
export function childViews(children: readonly ChildTimeline[], origin: number, priceOf: PriceOf): ChildTimelineView[] {
  return children.map((child) => {
    const events = child.events.filter((e) => e.turn !== undefined);
    const end = events.find((e) => e.type in ENDINGS);
    const from = turnStart(events);
    const outcome = end ? ENDINGS[end.type]! : 'running';
    return {
      task: child.task,
      ...(child.call ? { call: child.call } : {}),
      bar: {
        kind: 'subagent',
        ...bar(
          `${child.mode} ${child.label ?? child.task} · ${child.agent}`,
          from,
          end?.at ?? events.at(-1)?.at ?? from,
          origin,
          outcome === 'completed' || outcome === 'running',
        ),
        task: child.task,
        agent: child.agent,
        mode: child.mode,
        ...(events[0]?.turn ? { turn: events[0].turn } : {}),
        outcome,
      },
      spans: spansOf(events, priceOf, origin),
      children: childViews(child.children, origin, priceOf),
    };
  });
}

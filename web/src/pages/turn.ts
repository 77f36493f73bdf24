import type { ChatMessage, Envelope } from '../../../bus/index.js';
import { errorText, getJson, sendJson } from '../api.js';
import { prettyJson } from '../components/conversation.js';
import { eventRow } from '../components/event-row.js';
import { costTag } from '../components/cost.js';
import { idChip, pill } from '../components/ids.js';
import { stats } from '../components/stats.js';
import { rowsOf, waterfall } from '../components/waterfall.js';
import { h, replace, type Child } from '../dom.js';
import { count, duration, exact, plural, sessionParts, sessionTitle, stamp } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import type { Rerun, TurnView } from '../../../bus/api-shapes.js';
import type { Page } from './page.js';

const ENDINGS = new Set(['turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted']);

function outcomeOf(events: Envelope[]): { text: string; tone: 'ok' | 'bad' | 'busy' } {
  const end = events.find((e) => ENDINGS.has(e.type));
  if (!end) return { text: 'running', tone: 'busy' };
  if (end.type === 'turn.completed') return { text: 'completed', tone: 'ok' };
  if (end.type === 'turn.stopped') return { text: `stopped: ${end.data.reason.replace(/_/g, ' ')}`, tone: 'bad' };
  if (end.type === 'turn.failed') return { text: `failed: ${end.data.code}`, tone: 'bad' };
  return { text: 'aborted', tone: 'bad' };
}

function summary(t: TurnView, started: Envelope<'turn.started'> | undefined): HTMLElement {
  const end = t.events.find((e) => ENDINGS.has(e.type));
  const models = t.spans.filter((s) => s.kind === 'model');
  const tools = t.spans.filter((s) => s.kind === 'tool');
  const parts = started ? sessionParts(started.data.session_key) : {};
  const usage = t.usage;
  const cached = usage.cached_input_tokens ? ` (${exact(usage.cached_input_tokens)} cached)` : '';
  const items: Array<[string, Child]> = [
    ['started', started ? h('span', { title: stamp(started.at) }, stamp(started.at).slice(0, 19)) : '—'],
    ['took', end && started ? duration(end.at - started.at) : 'still running'],
    ['model calls', String(models.length)],
    [
      'tool calls',
      `${tools.length}${tools.some((s) => !s.ok) ? ` (${tools.filter((s) => !s.ok).length} failed)` : ''}`,
    ],
    [
      'tokens',
      usage.calls > 0 && usage.unreported_calls >= usage.calls
        ? 'unknown'
        : `${exact(usage.input_tokens)} in${cached} / ${exact(usage.output_tokens)} out` +
          (usage.unreported_calls ? ' + unknown' : ''),
    ],
    ['cost', usage.calls ? costTag(usage.calls, usage.cost_usd, usage.unpriced_calls, usage.unreported_calls) : '—'],
    ['agent', parts.agent ?? t.events[0]?.agent ?? '—'],
    [
      'session',
      t.session ? h('a', { href: `#/sessions/${t.session}` }, started ? sessionTitle(parts) : t.session) : '—',
    ],
  ];
  // In a cluster (#27): the gateway that ran it (and the one that closed it after a takeover).
  const gateways = [...new Set(t.events.flatMap((e) => (e.gateway ? [e.gateway] : [])))];
  if (gateways.length > 0) items.push(['gateway', gateways.join(', ')]);
  return stats(items, 'turn-facts');
}

function messageBlock(message: ChatMessage): HTMLElement {
  switch (message.role) {
    case 'system':
      return h(
        'div',
        { class: 'msg system' },
        h('div', { class: 'msg-role' }, 'system'),
        h('pre', { class: 'step-pre' }, message.content),
      );
    case 'user':
      return h(
        'div',
        { class: 'msg user' },
        h('div', { class: 'msg-role' }, 'user'),
        h('div', { class: 'msg-body' }, message.content),
      );
    case 'assistant':
      return h(
        'div',
        { class: 'msg assistant' },
        h('div', { class: 'msg-role' }, 'assistant'),
        h('div', { class: 'msg-body' }, renderMarkdown(message.content)),
        ...message.tool_calls.map((c) =>
          h(
            'div',
            { class: 'call' },
            h('code', {}, c.name),
            h('pre', { class: 'step-pre' }, JSON.stringify(c.arguments, null, 2)),
          ),
        ),
      );
    case 'tool':
      return h(
        'div',
        { class: 'msg tool' },
        h('div', { class: 'msg-role' }, `tool ${message.name}`),
        h('pre', { class: 'step-pre result' }, message.content),
      );
  }
}

/** The prompt, each model answer, each tool result and the reply, as a person reads them. */
function conversation(events: Envelope[]): HTMLElement {
  const blocks: HTMLElement[] = [];
  for (const event of events) {
    if (event.type === 'prompt.built') {
      const history = event.data.messages;
      blocks.push(
        h(
          'article',
          { class: 'exchange prompt' },
          h('h3', {}, 'The prompt'),
          h(
            'details',
            { class: 'fold' },
            h('summary', {}, `System prompt · ${count(event.data.system.length)} chars`),
            h('pre', { class: 'step-pre' }, event.data.system),
          ),
          h(
            'details',
            { class: 'fold' },
            h('summary', {}, `Tools offered · ${event.data.tools.length}`),
            h('div', { class: 'chips' }, ...event.data.tools.map((t) => h('code', { class: 'chip' }, t))),
          ),
          history.length > 1
            ? h(
                'details',
                { class: 'fold' },
                h('summary', {}, `Earlier conversation · ${plural(history.length - 1, 'message')}`),
                ...history.slice(0, -1).map(messageBlock),
              )
            : null,
          ...history.slice(-1).map(messageBlock),
        ),
      );
    } else if (event.type === 'provider.responded') {
      const d = event.data;
      blocks.push(
        h(
          'article',
          { class: 'exchange answer' },
          h(
            'h3',
            {},
            `Model answer ${d.iteration}`,
            d.usage
              ? h(
                  'span',
                  { class: 'muted' },
                  ` · ${count(d.usage.input_tokens)} in / ${count(d.usage.output_tokens)} out tokens`,
                )
              : null,
          ),
          d.reasoning
            ? h(
                'details',
                { class: 'fold' },
                h('summary', {}, 'Reasoning'),
                h('pre', { class: 'step-pre' }, d.reasoning),
              )
            : null,
          d.text ? h('div', { class: 'msg-body' }, renderMarkdown(d.text)) : h('p', { class: 'muted' }, 'no text'),
          ...d.tool_calls.map((c) =>
            h(
              'div',
              { class: 'call' },
              'calls ',
              h('code', {}, c.name),
              h('pre', { class: 'step-pre' }, JSON.stringify(c.arguments, null, 2)),
            ),
          ),
        ),
      );
    } else if (event.type === 'provider.failed') {
      blocks.push(
        h(
          'article',
          { class: 'exchange failed' },
          h('h3', {}, 'Model call failed'),
          h('p', { class: 'error' }, `${event.data.message} (${event.data.code})`),
        ),
      );
    } else if (event.type === 'tool.completed') {
      blocks.push(
        h(
          'article',
          { class: `exchange tool${event.data.ok ? '' : ' failed'}` },
          h(
            'h3',
            {},
            `${event.data.ok ? '✓' : '✗'} ${event.data.name}`,
            h('span', { class: 'muted' }, ` · ${count(event.data.content.length)} chars`),
          ),
          h('pre', { class: 'step-pre result' }, event.data.content),
        ),
      );
    } else if (event.type === 'turn.completed' || event.type === 'turn.stopped' || event.type === 'turn.failed') {
      blocks.push(
        h(
          'article',
          { class: `exchange reply${event.type === 'turn.completed' ? '' : ' failed'}` },
          h('h3', {}, 'Reply'),
          h('div', { class: 'msg-body' }, renderMarkdown(event.data.reply)),
        ),
      );
    }
  }
  return h('section', { class: 'conversation', id: 'turn-conversation' }, ...blocks);
}

/** Indented JSON of both sides, the lines the other side lacks marked. */
function divergence(result: Extract<Rerun, { identical: false }>): HTMLElement {
  const side = (title: string, value: unknown, other: unknown): HTMLElement => {
    const lines = value === undefined ? ['(nothing)'] : prettyJson(JSON.stringify(value)).split('\n');
    const others = new Set(other === undefined ? [] : prettyJson(JSON.stringify(other)).split('\n'));
    return h(
      'div',
      { class: 'diff-side' },
      h('h4', {}, title),
      h(
        'pre',
        { class: 'diff' },
        ...lines.map((line) => h('span', { class: others.has(line) ? 'same' : 'changed' }, `${line}\n`)),
      ),
    );
  };
  return h(
    'div',
    { class: 'rerun diverged' },
    h(
      'p',
      {},
      h('strong', {}, `Diverges at recorded event ${result.index + 1}`),
      result.seq ? ` (#${result.seq}, ${result.expected?.type ?? ''})` : '',
    ),
    h(
      'div',
      { class: 'diff-pair' },
      side('recorded', result.expected, result.actual),
      side('this build', result.actual, result.expected),
    ),
  );
}

/**
 * A turn: what it was and cost, its waterfall (axis, legend, tooltips), the prompt, answers and tool results
 * as text, a rerun against this build with the divergence marked, and every event, each opening to JSON.
 */
export const turnPage: Page = (root, turn) => {
  const result = h('div', { id: 'rerun-result' });
  const eventsList = h('div', { class: 'event-list', id: 'turn-events' });
  const rerun = async (): Promise<void> => {
    replace(result, h('p', { class: 'muted' }, 'rerunning…'));
    const reply = await sendJson<Rerun>('POST', `/api/turns/${turn ?? ''}/rerun`);
    if (!reply.ok) return replace(result, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    eventsList.querySelectorAll('.diverged').forEach((row) => row.classList.remove('diverged'));
    const body = reply.body;
    if (body.identical)
      return replace(
        result,
        h('p', { class: 'rerun identical' }, `identical: this build records the same ${body.compared} events`),
      );
    replace(result, divergence(body));
    const row = body.seq ? eventsList.querySelector(`[data-seq="${body.seq}"]`) : null;
    row?.classList.add('diverged');
  };
  void getJson<TurnView>(`/api/turns/${turn ?? ''}`).then((reply) => {
    if (!reply.ok)
      return replace(root, h('h1', {}, 'Turn'), h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    const t = reply.body;
    const started = t.events.find((e): e is Envelope<'turn.started'> => e.type === 'turn.started');
    const origin = started?.at ?? t.events[0]?.at ?? 0;
    const end = t.events.find((e) => ENDINGS.has(e.type));
    const outcome = outcomeOf(t.events);
    replace(eventsList, ...t.events.map((e) => eventRow(e)));
    replace(
      root,
      h(
        'div',
        { class: 'page-head' },
        h('h1', {}, 'Turn ', idChip(t.turn)),
        pill(outcome.text, outcome.tone, { id: 'turn-outcome' }),
        h(
          'button',
          {
            type: 'button',
            id: 'rerun',
            title: 'run the turn machine of this build again, answering from the log',
            onclick: () => void rerun(),
          },
          'Rerun',
        ),
      ),
      started ? h('blockquote', { class: 'turn-text' }, started.data.text) : null,
      summary(t, started),
      result,
      h('h2', {}, 'Timeline'),
      h(
        'p',
        { class: 'muted small' },
        'Time runs from the message reaching the agent (0 ms). The first bar is the prompt being built: history, ' +
          "summary and workspace files. A subagent's own turn is drawn under the call that started it.",
      ),
      waterfall(rowsOf(t.spans, t.children), end ? end.at - origin : 0),
      h('h2', {}, 'Conversation'),
      conversation(t.events),
      h('h2', {}, 'Events ', h('span', { class: 'count' }, t.events.length)),
      eventsList,
    );
  });
  replace(root, h('p', { class: 'muted' }, 'Loading…'));
  return () => {};
};

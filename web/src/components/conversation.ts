import { h, replace } from '../dom.js';
import { clock, count, preview, stamp } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import type { Step, Transcript } from '../../../bus/api-shapes.js';

// A conversation as the Chat and Sessions pages show it: the user's messages, what each turn did on the way
// (the model's text between tool calls, each tool call folded, failures in red), and the replies, each
// linking its turn.

/** JSON shown indented when it parses (arguments cut for the page do not), else as it came. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function toolSummary(step: Extract<Step, { kind: 'tool' }>): HTMLElement {
  const state = step.ok === undefined ? 'running' : step.ok ? 'ok' : 'failed';
  const icon = state === 'running' ? '…' : state === 'ok' ? '✓' : '✗';
  const outcome =
    state === 'failed'
      ? h('span', { class: 'step-error' }, preview(step.content ?? '', 140))
      : state === 'ok'
        ? h('span', { class: 'muted' }, `${count(step.chars ?? 0)} chars`)
        : h('span', { class: 'muted' }, 'running');
  return h(
    'summary',
    {},
    h('span', { class: 'step-icon', 'aria-label': state }, icon),
    h('span', { class: 'step-name' }, step.name),
    h('code', { class: 'step-args' }, preview(step.arguments, 60)),
    outcome,
  );
}

/** One tool call, folded to a line; `update` adds the result when it arrives. */
export function toolStep(step: Extract<Step, { kind: 'tool' }>): {
  node: HTMLDetailsElement;
  update(result: { ok: boolean; content: string }): void;
} {
  const node = h('details', { class: 'step tool', 'data-call': step.call_id });
  const draw = (): void => {
    const state = step.ok === undefined ? 'running' : step.ok ? 'ok' : 'failed';
    node.className = `step tool is-${state}`;
    replace(
      node,
      toolSummary(step),
      h(
        'div',
        { class: 'step-body' },
        h('div', { class: 'step-label' }, 'arguments'),
        h('pre', { class: 'step-pre' }, prettyJson(step.arguments)),
        step.ok === undefined ? null : h('div', { class: 'step-label' }, step.ok ? 'result' : 'error'),
        step.ok === undefined ? null : h('pre', { class: 'step-pre result' }, step.content ?? ''),
        step.chars !== undefined && step.content !== undefined && step.chars > step.content.length
          ? h(
              'p',
              { class: 'muted' },
              `showing ${count(step.content.length)} of ${count(step.chars)} chars; the turn view has it all`,
            )
          : null,
      ),
    );
  };
  draw();
  return {
    node,
    update(result) {
      Object.assign(step, {
        ok: result.ok,
        content: result.content.length > 4000 ? `${result.content.slice(0, 4000)}…` : result.content,
        chars: result.content.length,
      });
      draw();
    },
  };
}

export function textStep(text: string): HTMLElement {
  return h('div', { class: 'step text' }, renderMarkdown(text));
}

/** Called with each tool call drawn, so a result that arrives later can fill it in. */
export type ToolRegistry = (callId: string, update: (result: { ok: boolean; content: string }) => void) => void;

export function stepsOf(steps: Step[], register?: ToolRegistry): HTMLElement {
  return h(
    'div',
    { class: 'steps' },
    ...steps.map((step) => {
      if (step.kind === 'text') return textStep(step.text);
      const drawn = toolStep(step);
      register?.(step.call_id, drawn.update);
      return drawn.node;
    }),
  );
}

export function userBubble(text: string, at?: number): HTMLElement {
  return h(
    'div',
    { class: 'bubble user' },
    h('div', { class: 'body' }, text),
    at ? h('div', { class: 'meta', title: stamp(at) }, clock(at)) : null,
  );
}

/** The footer of a reply: when, and a link to its turn. */
export function replyMeta(turn: string | undefined, at: number | undefined, outcome?: string): HTMLElement {
  return h(
    'div',
    { class: 'meta' },
    at ? h('span', { title: stamp(at) }, clock(at)) : null,
    outcome && outcome !== 'completed' ? h('span', { class: 'outcome' }, outcome) : null,
    turn ? h('a', { href: `#/turn/${turn}`, class: 'turn-link', title: `open turn ${turn}` }, 'turn ↗') : null,
  );
}

export function replyBubble(content: string, turn?: string, at?: number, outcome?: string): HTMLElement {
  const failed = outcome === 'failed' || outcome === 'stopped';
  return h(
    'div',
    { class: `bubble assistant${failed ? ' failed' : ''}`, ...(turn ? { 'data-turn': turn } : {}) },
    h('div', { class: 'body' }, renderMarkdown(content)),
    replyMeta(turn, at, outcome),
  );
}

/** One exchange: the user's message, the steps of its turn, the reply (each added as it comes). */
export function turnGroup(turn?: string): HTMLElement {
  return h('div', { class: 'turn-group', ...(turn ? { 'data-turn': turn } : {}) });
}

/** A whole transcript as exchanges: each user message, the steps of its turn, its reply. */
export function transcriptGroups(transcript: Transcript, register?: ToolRegistry): HTMLElement[] {
  const groups: HTMLElement[] = [];
  let group: HTMLElement | undefined;
  for (const entry of transcript.messages) {
    const { message } = entry;
    if (message.role === 'user') {
      group = turnGroup(entry.turn);
      groups.push(group);
      group.append(userBubble(message.content, entry.at));
      const steps = entry.turn ? transcript.steps[entry.turn] : undefined;
      if (steps && steps.length > 0) group.append(stepsOf(steps, register));
    } else if (message.role === 'assistant') {
      if (!group || group.querySelector('.bubble.assistant')) {
        group = turnGroup(entry.turn);
        groups.push(group);
      }
      group.append(replyBubble(message.content, entry.turn, entry.at, entry.outcome));
    }
  }
  return groups;
}

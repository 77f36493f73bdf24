import type { Envelope } from '../../../bus/index.js';
import { count, eventLabel, plural, preview, shortId, stateLabel } from '../format.js';

const quote = (text: string, max = 100): string => `“${preview(text, max)}”`;

/** `session:sk_v1_<64 hex>` → `session:sk_v1_9df7a1…346b9d`. */
const actorId = (actor: string): string => {
  const colon = actor.indexOf(':');
  return colon < 0 ? actor : `${actor.slice(0, colon + 1)}${shortId(actor.slice(colon + 1))}`;
};

/** One line saying what an event means, for lists; the whole event is one click away. */
export function describe(event: Envelope): string {
  switch (event.type) {
    case 'message.received':
      return `${event.data.sender} on ${event.data.channel}: ${quote(event.data.text)}`;
    case 'message.sent':
      return `to ${event.data.channel} ${event.data.chat}: ${quote(event.data.text)}`;
    case 'message.edited':
      return `edited on ${event.data.channel}: ${quote(event.data.text)}`;
    case 'turn.started':
      return `${quote(event.data.text)} on ${event.data.channel} ${event.data.chat}`;
    case 'prompt.built': {
      const { messages, tools, system } = event.data;
      const prompt = `system prompt ${count(system.length)} chars`;
      return `${plural(messages.length, 'message')}, ${plural(tools.length, 'tool')}, ${prompt}`;
    }
    case 'provider.requested': {
      const streamed = event.data.stream ? ', streamed' : '';
      const { model_name: model, iteration, message_count: messages } = event.data;
      return `${model}, call ${iteration}, ${plural(messages, 'message')}${streamed}`;
    }
    case 'provider.chunk':
      return `${event.data.kind}: ${JSON.stringify(event.data.delta)}`;
    case 'provider.responded': {
      const usage = event.data.usage
        ? ` · ${count(event.data.usage.input_tokens)} in / ${count(event.data.usage.output_tokens)} out tokens`
        : '';
      const calls = event.data.tool_calls.length
        ? ` · calls ${event.data.tool_calls.map((c) => c.name).join(', ')}`
        : '';
      return `${event.data.text ? quote(event.data.text) : '(no text)'}${calls}${usage}`;
    }
    case 'provider.failed':
      return `${event.data.model_name} failed: ${event.data.message} (${event.data.code})`;
    case 'tool.requested':
      return `${event.data.name} ${preview(JSON.stringify(event.data.arguments), 120)}`;
    case 'tool.completed': {
      const { name, ok, content } = event.data;
      return `${name} ${ok ? '✓' : '✗'} ${count(content.length)} chars${ok ? '' : `: ${preview(content, 100)}`}`;
    }
    case 'turn.completed':
      return `reply after ${plural(event.data.iterations, 'model call')}: ${quote(event.data.reply)}`;
    case 'turn.stopped':
      return `${event.data.reason.replace(/_/g, ' ')}: ${quote(event.data.reply)}`;
    case 'turn.failed':
      return `${event.data.message} (${event.data.code})`;
    case 'actor.transitioned': {
      const from = event.data.from ? `${stateLabel(event.data.from)} → ` : '';
      return `${actorId(event.data.actor)}: ${from}${stateLabel(event.data.to)} on ${eventLabel(event.data.event)}`;
    }
    case 'actor.stopped':
      return `${actorId(event.data.actor)} ended${event.data.reason ? `: ${event.data.reason}` : ''}`;
    case 'channel.failed':
      return `${event.data.channel}: ${event.data.message}`;
    case 'subagent.spawned': {
      const label = event.data.label ? `“${event.data.label}” ` : '';
      const { mode, agent_id: agent, depth, task } = event.data;
      return `${mode} ${label}to agent ${agent}, depth ${depth}: ${quote(task)}`;
    }
    case 'subagent.ended': {
      const reason = event.data.reason ? `: ${event.data.reason}` : '';
      const result = event.data.result ? `: ${quote(event.data.result)}` : '';
      return `${shortId(event.data.task_id)} ${event.data.status}${reason}${result}`;
    }
    default: {
      const text = JSON.stringify(event.data);
      return text.length > 160 ? `${text.slice(0, 160)}…` : text;
    }
  }
}

/** Event types in colour families: messages, turns, model, tools, machines, the rest. */
export function familyOf(type: string): string {
  const domain = type.split('.')[0] ?? '';
  if (domain === 'message' || domain === 'command') return 'message';
  if (domain === 'turn' || domain === 'prompt' || domain === 'loop' || domain === 'summary') return 'turn';
  if (domain === 'provider') return 'model';
  if (domain === 'tool' || domain === 'todo' || domain === 'skill' || domain === 'mcp' || domain === 'subagent')
    return 'tool';
  if (domain === 'actor') return 'actor';
  return 'system';
}

import { rerunTurn, ReplayError } from '../../../actors/replay.js';
import type { TurnUsageView } from '../../../bus/api-shapes.js';
import type { Envelope } from '../../../bus/index.js';
import { childTimelines, type ChildTimeline } from '../../../store/log/child-timelines.js';
import { EventLog } from '../../../store/log/event-log.js';
import type { EventStore } from '../../../store/log/event-store.js';
import { logDir } from '../../../store/paths.js';
import { openClusterRead } from '../cluster-read.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { CliError, UsageError } from '../errors.js';
import { loadConfigForCli } from '../load-config.js';
import type { LoadedConfig } from '../../../store/config/index.js';
import { dollars, pricesOf } from '../../../store/usage/prices.js';
import { turnUsage } from '../../../store/usage/usage-log.js';

const MAX_TEXT = 2000;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}… (${text.length - MAX_TEXT} more characters)` : text;
}

/** What one event adds to the story of a turn, in a line or a few. */
function describe(e: Envelope, chunks: Map<number, string>): string {
  switch (e.type) {
    case 'turn.started':
      return `${e.data.channel} ${e.data.chat} said: ${e.data.text}${e.data.skill ? ` (skill ${e.data.skill})` : ''}`;
    case 'prompt.built':
      return (
        `prompt: ${e.data.messages.length} messages, tools ${e.data.tools.join(', ') || 'none'}\n--- system ---\n` +
        `${clip(e.data.system)}\n--- messages ---\n` +
        `${e.data.messages.map((m) => `[${m.role}] ${clip(m.content)}`).join('\n')}`
      );
    case 'provider.requested':
      return (
        `model ${e.data.model_name}, call ${e.data.iteration}, ` +
        `${e.data.message_count} messages${e.data.stream ? ', streaming' : ''}`
      );
    case 'provider.responded': {
      const streamed = chunks.get(e.data.iteration);
      const calls = e.data.tool_calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(', ');
      return [
        `answer: ${clip(e.data.text) || '(no text)'}`,
        calls && `tool calls: ${calls}`,
        streamed !== undefined && `streamed ${streamed.length} characters`,
        e.data.usage && `tokens in ${e.data.usage.input_tokens}, out ${e.data.usage.output_tokens}`,
      ]
        .filter(Boolean)
        .join('; ');
    }
    case 'tool.requested':
      return `${e.data.name} ${JSON.stringify(e.data.arguments)}`;
    case 'tool.completed': {
      const images = e.data.images ?? [];
      const shown =
        images.length > 0
          ? ` (+ ` +
            `${images.map((i) => `${i.mime} image, ${Buffer.byteLength(i.data, 'base64')} bytes`).join('; ')}, ` +
            `shown to the model)`
          : '';
      return `${e.data.name} ${e.data.ok ? 'ok' : 'failed'}: ${clip(e.data.content)}${shown}`;
    }
    case 'turn.completed':
    case 'turn.stopped':
    case 'turn.failed':
      return `reply: ${e.data.reply}`;
    case 'subagent.spawned':
      return (
        `${e.data.mode} ${e.data.task_id} (agent ${e.data.agent_id}${e.data.label ? `, "${e.data.label}"` : ''}, ` +
        `depth ${e.data.depth}): ${clip(e.data.task)}`
      );
    case 'subagent.ended':
      return (
        `${e.data.task_id} ` +
        `${e.data.status}${e.data.reason ? `: ${e.data.reason}` : ''}${e.data.result ? `: ${clip(e.data.result)}` : ''}`
      );
    case 'hook.decided': {
      const { hook, point, action, reason, call_id, iteration, ...changes } = e.data;
      const on = call_id ? ` ${call_id}` : iteration !== undefined ? ` call ${iteration}` : '';
      const changed = Object.keys(changes).length > 0 ? ` ${JSON.stringify(changes)}` : '';
      return `${hook} at ${point}${on}: ${action}${reason ? ` (${reason})` : ''}${changed}`;
    }
    case 'approval.requested':
      return `asked ${e.data.channel} ${e.data.chat}: ${e.data.prompt}`;
    case 'approval.answered':
      return `${e.data.approved ? 'approved' : 'denied'} by ${e.data.by}${e.data.reason ? ` (${e.data.reason})` : ''}`;
    default:
      return JSON.stringify(e.data);
  }
}

/**
 * The story of a turn, one line per event with its offset from `start`; a subagent the turn started follows its
 * `subagent.spawned` line, its own turn indented under it.
 */
function timeline(events: Envelope[], children: ChildTimeline[], start: number, indent = ''): string[] {
  const chunks = new Map<number, string>();
  let call = 0;
  const lines: string[] = [];
  for (const e of events) {
    if (e.type === 'provider.requested') call = e.data.iteration;
    if (e.type === 'provider.chunk') {
      chunks.set(call, (chunks.get(call) ?? '') + e.data.delta);
      continue;
    }
    lines.push(`${indent}+${String(e.at - start).padStart(6)} ms  ${e.type.padEnd(19)} ${describe(e, chunks)}`);
    const child = e.type === 'subagent.spawned' ? children.find((c) => c.task === e.data.task_id) : undefined;
    if (child)
      lines.push(
        ...timeline(
          child.events.filter((c) => c.turn !== undefined),
          child.children,
          start,
          `${indent}    │ `,
        ),
      );
  }
  return lines;
}

/**
 * The turn's tokens and cost, one line: `tokens: in 1,200 (1,024 cached), out 300 (256 reasoning); cost $0.0012
 * (fast)`.
 */
function usageLine(usage: TurnUsageView): string {
  const models = usage.models.join(', ');
  const n = (x: number) => x.toLocaleString('en-US');
  const price =
    usage.unpriced_calls === usage.calls
      ? `cost unknown (no price for ${models}; set model_list[].pricing)`
      : `cost ${dollars(usage.cost_usd)}${usage.unpriced_calls > 0 ? ' + unpriced answers' : ''} (${models})`;
  const written =
    usage.cache_write_input_tokens > 0 ? `, ${n(usage.cache_write_input_tokens)} written to the cache` : '';
  return (
    `tokens: in ${n(usage.input_tokens)} (${n(usage.cached_input_tokens)} cached${written}), ` +
    `out ${n(usage.output_tokens)} (${n(usage.reasoning_tokens)} reasoning); ${price}`
  );
}

/** A task's timeline as `--json` prints it: its events with their offsets from the parent turn's start. */
function childJson(child: ChildTimeline, start: number): Record<string, unknown> {
  const { events, children, ...about } = child;
  return {
    ...about,
    events: events.filter((e) => e.turn !== undefined).map((e) => ({ ...e, offset_ms: e.at - start })),
    children: children.map((c) => childJson(c, start)),
  };
}

/** The log the turn is looked up in: the cluster log with `--cluster` (or `cluster.url`), else this workspace's. */
async function openLog(
  context: CommandContext,
  turn: string,
  loaded: LoadedConfig,
): Promise<{ log: EventStore; close(): Promise<void> }> {
  const cluster = await openClusterRead(context, 'replay', loaded);
  if (cluster) return cluster;
  try {
    const log = EventLog.open(logDir(loaded.workspace), { readOnly: true });
    return { log, close: async () => log.close() };
  } catch {
    throw new CliError(
      'turn_not_found',
      `no turn ${turn}`,
      'the event log is empty',
      'Run a turn first, e.g. `tern agent -m "hello"`.',
    );
  }
}

export async function run(context: CommandContext): Promise<number> {
  const { positionals, values, json, stdout, env } = context;
  const [turn] = positionals;
  if (!turn || positionals.length > 1) throw new UsageError('replay takes one turn id, e.g. `tern replay t_m1abc2def`');
  const loaded = loadConfigForCli(env);
  const { log, close } = await openLog(context, turn, loaded);
  try {
    const events = log.read({ turn });
    if (events.length === 0)
      throw new CliError(
        'turn_not_found',
        `no turn ${turn}`,
        'the log has no event for it',
        'List recent turns with `tern log --type turn.started`.',
      );
    if (values.rerun) {
      const result = await rerunTurn(events).catch((error: unknown) => {
        if (error instanceof ReplayError)
          throw new CliError(error.code, `cannot rerun ${turn}`, error.message, 'Pick a turn that built its prompt.');
        throw error;
      });
      if (json) print(stdout, JSON.stringify({ ok: true, turn, ...result }));
      else if (result.identical) print(stdout, 'identical');
      else {
        print(stdout, `diverged at event ${result.index + 1}:`);
        print(
          stdout,
          `  recorded: ` +
            `${result.expected ? `${result.expected.type} ${JSON.stringify(result.expected.data)}` : '(nothing)'}`,
        );
        print(
          stdout,
          `  now:      ${result.actual ? `${result.actual.type} ${JSON.stringify(result.actual.data)}` : '(nothing)'}`,
        );
      }
      return result.identical ? 0 : 1;
    }
    const start = events[0]!.at;
    const children = childTimelines(log, events);
    const usage = turnUsage(log, turn, pricesOf(loaded.config));
    if (json) {
      print(
        stdout,
        JSON.stringify({
          ok: true,
          turn,
          events: events.map((e) => ({ ...e, offset_ms: e.at - start })),
          children: children.map((c) => childJson(c, start)),
          usage,
        }),
      );
    } else {
      // In a cluster (#27): the gateways that wrote the turn (a second one closed it after a takeover).
      const gateways = [...new Set(events.flatMap((e) => (e.gateway ? [e.gateway] : [])))];
      if (gateways.length > 0) print(stdout, `gateway: ${gateways.join(', ')}`);
      timeline(events, children, start).forEach((line) => print(stdout, line));
      if (usage.calls > 0) print(stdout, usageLine(usage));
    }
    return 0;
  } finally {
    await close();
  }
}

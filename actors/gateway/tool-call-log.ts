import type { Subscription } from 'rxjs';
import { argumentKeys } from '../../bus/argument-keys.js';
import type { Bus } from '../../bus/bus.js';
import type { Logger } from '../../store/logs/logger.js';
import { HEARTBEAT_CHAT } from './heartbeat.js';

const TURN_ENDS = ['turn.completed', 'turn.stopped', 'turn.failed', 'turn.aborted'] as const;
/** The model chooses the keys: a line stays a line however many there are, or however long. */
const KEYS_SHOWN = 20;
const KEY_CHARS = 64;

/** The keys as the log shows them (the logger escapes what they contain); `arg_count` keeps the true count. */
function shownKeys(keys: string[]): string {
  const cut = (key: string) => (key.length > KEY_CHARS ? `${key.slice(0, KEY_CHARS)}…` : key);
  const shown = keys.slice(0, KEYS_SHOWN).map(cut);
  return keys.length > KEYS_SHOWN ? `${shown.join(',')},…` : shown.join(',');
}

/**
 * Every tool call in the text logs at `info`: the tool, its call id, its turn and its arguments' keys with their
 * count, never a value (spec); then whether it succeeded and how long it took. Calls of heartbeat turns (and of the
 * subagents they start) go to `heartbeat.log`, all others to `gateway.log` and `AGENT_LOG_FILE`.
 */
export function logToolCalls(bus: Bus, logs: { gateway: Logger; heartbeat: Logger }): Subscription {
  const heartbeatTurns = new Set<string>();
  const started = new Map<string, { at: number; turn: string | undefined }>();
  const loggerOf = (turn: string | undefined): Logger =>
    turn !== undefined && heartbeatTurns.has(turn) ? logs.heartbeat : logs.gateway;
  return bus.on('turn.started', 'tool.requested', 'tool.completed', ...TURN_ENDS).subscribe((e) => {
    switch (e.type) {
      case 'turn.started':
        if (
          (e.data.channel === 'system' && e.data.chat === HEARTBEAT_CHAT) ||
          (e.parent !== undefined && heartbeatTurns.has(e.parent))
        )
          heartbeatTurns.add(e.turn!);
        return;
      case 'tool.requested': {
        const { keys, count } = argumentKeys(e.data.arguments);
        started.set(e.data.call_id, { at: e.at, turn: e.turn });
        const fields = {
          tool: e.data.name,
          call: e.data.call_id,
          turn: e.turn,
          arg_count: count,
          arg_keys: shownKeys(keys),
        };
        loggerOf(e.turn).info('tool call', fields);
        return;
      }
      case 'tool.completed': {
        const call = started.get(e.data.call_id);
        started.delete(e.data.call_id);
        loggerOf(e.turn).info('tool done', {
          tool: e.data.name,
          call: e.data.call_id,
          turn: e.turn,
          ok: e.data.ok,
          ms: call === undefined ? undefined : e.at - call.at,
        });
        return;
      }
      default:
        // A turn cut off mid-call completes nothing more.
        heartbeatTurns.delete(e.turn!);
        for (const [id, call] of started) if (call.turn === e.turn) started.delete(id);
    }
  });
}

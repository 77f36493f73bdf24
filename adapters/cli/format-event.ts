import { withArgumentKeys } from '../../bus/argument-keys.js';
import type { Envelope } from '../../bus/index.js';

const MAX_DATA = 160;

/**
 * One event as one readable line: seq, time, the gateway that wrote it (in a cluster), type, agent/session/turn, then
 * its data in brief, tool calls with their argument keys and count only (`--json` prints the arguments whole).
 * `session` prints the session id (a prefix unique in the log, so it pastes back into `--session`).
 */
export function formatEvent(e: Envelope, session: (id: string | undefined) => string): string {
  const data = JSON.stringify(withArgumentKeys(e.data));
  const brief = data.length > MAX_DATA ? `${data.slice(0, MAX_DATA - 1)}…` : data;
  const keys = `${e.agent ?? '-'} ${session(e.session)} ${e.turn ?? '-'}`;
  // In a cluster (#27) the gateway that wrote the event comes after its time.
  const gateway = e.gateway === undefined ? '' : `${e.gateway}  `;
  return (
    `${String(e.seq).padStart(7)}  ${new Date(e.at).toISOString()}  ` +
    `${gateway}${e.type.padEnd(20)} ${keys}  ${brief}`
  );
}

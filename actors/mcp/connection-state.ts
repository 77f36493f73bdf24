import type { SnapshotFrom } from 'xstate';
import { retryDelay, type Backoff, type mcpServerMachine } from '../../machines/mcp-server.js';

export type { Backoff };

/** A server connection as `/list mcp`, `tern mcp` and the dashboard show it. */
export type ConnectionState =
  | { state: 'disabled' }
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; tools: number }
  | { state: 'failed'; reason: string; retryInMs: number };

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000 };

/** The connection's state read from its machine's snapshot (`idle` is the first attempt, not yet begun). */
export function connectionOf(snapshot: SnapshotFrom<typeof mcpServerMachine>): ConnectionState {
  const { context } = snapshot;
  if (snapshot.matches('connected')) return { state: 'connected', tools: context.tools.length };
  if (snapshot.matches('failed')) {
    return { state: 'failed', reason: context.reason ?? '', retryInMs: retryDelay(context.backoff, context.failures) };
  }
  if (snapshot.matches('idle')) return { state: 'connecting', attempt: 0 };
  if (snapshot.matches('connecting')) return { state: 'connecting', attempt: context.failures + 1 };
  return { state: 'disabled' };
}

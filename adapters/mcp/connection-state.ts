/** A server connection as `/list mcp`, `tern mcp` and the dashboard show it. */
export type ConnectionState =
  | { state: 'disabled' }
  | { state: 'connecting'; attempt: number }
  | { state: 'connected'; tools: number }
  | { state: 'failed'; reason: string; retryInMs: number };

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000 };

/** Doubles per consecutive failure, capped: 1st failure waits `initialMs`. */
export function retryDelay(backoff: Backoff, failures: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
}

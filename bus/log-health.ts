/**
 * Whether the event log can write now. While it cannot (a full disk, a failing device), what was published waits in
 * memory, in order, and is written as soon as the log can write again; `waiting` counts those events.
 */
export type LogHealth =
  | { state: 'ok' }
  | { state: 'failing'; code: LogFailureCode; reason: string; since: number; waiting: number };

/**
 * `disk_full`: no space left for the log; `damaged`: its file is corrupted (only `tern log salvage` helps);
 * `write_failed`: any other write error.
 */
export type LogFailureCode = 'disk_full' | 'damaged' | 'write_failed';

export type FailingLog = Extract<LogHealth, { state: 'failing' }>;

export const LOG_OK: LogHealth = { state: 'ok' };

/** The log cannot write now: what waited for it is kept in memory and written once it can. */
export class LogFailingError extends Error {
  readonly code = 'log_failing';
  constructor(readonly health: FailingLog) {
    super(health.reason);
    this.name = 'LogFailingError';
  }
}

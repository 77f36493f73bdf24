/** Failures of the event log that a user can act on. */
export class LogError extends Error {
  constructor(
    readonly code: 'log_locked' | 'log_missing' | 'log_write_failed' | 'log_closed' | 'log_fenced',
    message: string,
  ) {
    super(message);
    this.name = 'LogError';
  }
}

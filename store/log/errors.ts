/** Failures of the event log that a user can act on; a `log_corrupted` one says what is damaged, and where. */
export type LogErrorCode =
  | 'log_locked'
  | 'log_missing'
  | 'log_write_failed'
  | 'log_closed'
  | 'log_corrupted'
  | 'log_unsafe'
  | 'log_fenced'
  | 'archive_unreadable'
  | 'compaction_stopped';

export class LogError extends Error {
  constructor(
    readonly code: LogErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'LogError';
  }
}

/** What to do about a damaged log, said wherever the damage is met. */
export const LOG_CORRUPTED_FIX =
  'Stop the gateway, run `tern log verify` to see what is damaged, then `tern log salvage`: ' +
  'it copies every readable event into a new log and keeps the damaged one aside.';

/** What to do once `tern log verify` has found damage. */
export const LOG_SALVAGE_FIX =
  'Stop the gateway and run `tern log salvage`: it copies every readable event into a new log and keeps the damaged ' +
  'one aside.';

/** lmdb's codes for a file it cannot make sense of (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`, `MDB_INVALID`, …). */
const LMDB_DAMAGE = new Set([-30796, -30797, -30793, -30794, -30795, -30782]);
/** What lmdb and its msgpack decoder say when the bytes they read are not what they wrote. */
const DAMAGE_MESSAGE = new RegExp(
  [
    'MDB_(CORRUPTED|PAGE_NOTFOUND|INVALID|VERSION_MISMATCH|PANIC|BAD_TXN)',
    'end of buffer not reached',
    'Unexpected end of MessagePack',
    'Record id is not defined',
  ].join('|'),
);

/** A damaged log behind an error (lmdb's or its decoder's), as a `log_corrupted` LogError; undefined for any other. */
export function logCorruption(error: unknown): LogError | undefined {
  if (error instanceof LogError) return error.code === 'log_corrupted' ? error : undefined;
  if (!(error instanceof Error)) return undefined;
  const code = Number((error as { code?: unknown }).code);
  if (!LMDB_DAMAGE.has(code) && !DAMAGE_MESSAGE.test(error.message)) return undefined;
  return new LogError('log_corrupted', error.message);
}

import { LOG_SALVAGE_FIX, LogError } from '../../../store/log/errors.js';
import { salvageLog, verifyLog } from '../../../store/log/salvage.js';
import { print, type CommandContext } from '../command.js';
import { CliError } from '../errors.js';

/** A gateway writing the log holds its lock: the check and the salvage need the log to stand still. */
export function locked(error: unknown, what: string): unknown {
  if (!(error instanceof LogError)) return error;
  if (error.code === 'log_locked') {
    const message = `cannot ${what} the event log while it is being written`;
    return new CliError('log_locked', message, error.message, 'Stop the gateway (or `tern agent`) first.');
  }
  if (error.code === 'log_missing') {
    const fix = 'Start the gateway once, or check AGENT_HOME and agents.defaults.workspace.';
    return new CliError('log_missing', 'there is no event log here', error.message, fix);
  }
  return error;
}

/**
 * `tern log verify`: reads the log's file page by page without lmdb (which crashes on some damage) and checks its
 * meta pages, every table's tree, every event (decodable, at its own seq, 1…last without a hole) and the indexes.
 * Exit 0 when nothing is wrong; 1 with every problem found.
 */
export function verify(dir: string, { json, stdout }: CommandContext): number {
  let check;
  try {
    check = verifyLog(dir);
  } catch (error) {
    throw locked(error, 'check');
  }
  const ok = check.problems.length === 0;
  const count = check.problems.length;
  const summary = ok ? 'no problem found' : `${count} problem${count === 1 ? '' : 's'} found`;
  if (json) {
    const { file, bytes, readable, problems } = check;
    const body = { ok, file, bytes, committed: check.committed ?? null, readable, problems };
    const error = { code: 'log_corrupted', message: `the event log is damaged (${summary}). ${LOG_SALVAGE_FIX}` };
    print(stdout, JSON.stringify(ok ? body : { ...body, error }));
    return ok ? 0 : 1;
  }
  print(stdout, `log        ${check.file} (${check.bytes} bytes)`);
  const committed = check.committed === undefined ? 'unknown count' : `${check.committed} committed`;
  print(stdout, `events     ${committed}, ${check.readable} readable`);
  for (const problem of check.problems) print(stdout, `problem    ${problem}`);
  if (ok) {
    print(stdout, 'ok         no problem found');
    return 0;
  }
  throw new CliError('log_corrupted', 'the event log is damaged', summary, LOG_SALVAGE_FIX);
}

/**
 * `tern log salvage`: copies every event that can be read (through the tree, and from pages a damaged branch cut off)
 * into a new log at its own seq, `log.lost` in the place of each one that cannot; the damaged files are kept in
 * `damaged-<time>/` beside the new log.
 */
export function salvage(dir: string, { json, stdout }: CommandContext): number {
  let result;
  try {
    result = salvageLog(dir);
  } catch (error) {
    throw locked(error, 'salvage');
  }
  const { saved, lost, lostSeqs, kept } = result;
  if (json) {
    print(stdout, JSON.stringify({ ok: true, saved, lost, lost_seqs: lostSeqs, kept }));
    return 0;
  }
  print(stdout, `saved      ${saved} events into a new log, each at its own seq`);
  const lostText = lost === 0 ? 'none' : `${lost} events (seq ${lostSeqs}), each a log.lost event in its place`;
  print(stdout, `lost       ${lostText}`);
  print(stdout, `kept       the old log in ${kept}`);
  return 0;
}

import { resolve } from 'node:path';
import { compactLog, forgetSender, type Compacted } from '../../../store/log/compact.js';
import { LogError } from '../../../store/log/errors.js';
import { importArchive } from '../../../store/log/import.js';
import { logDir } from '../../../store/paths.js';
import { CliError } from '../errors.js';
import { print, type CommandContext } from '../command.js';
import { UsageError } from '../errors.js';
import { loadConfigForCli } from '../load-config.js';
import { locked } from './log-repair.js';

function report(result: Compacted, { json, stdout }: CommandContext, what: string): number {
  if (json) print(stdout, JSON.stringify({ ok: true, ...result }));
  else {
    const archive = result.archive ? ` into sessions/${result.archive}` : '';
    const { kept, archived, removed } = result;
    print(stdout, `${what}: kept ${kept} events, archived ${archived}${archive}, removed ${removed}`);
  }
  return 0;
}

/**
 * `tern log compact`: events older than `log.retention.max_age_days` move to a gzip under `sessions/archive/`, and the
 * log is rewritten into a fresh file holding the rest (lmdb's file never shrinks otherwise).
 */
export async function compact(context: CommandContext): Promise<number> {
  // The retention comes from the config, so compaction needs one that can be used; its workspace names the log.
  const { config, workspace } = loadConfigForCli(context.env);
  try {
    return report(await compactLog(logDir(workspace), config.log.retention), context, 'compacted');
  } catch (error) {
    throw locked(error, 'compact');
  }
}

/** `tern log forget --sender ID`: that person's messages and the turns they started are removed for good. */
export async function forget(dir: string, context: CommandContext): Promise<number> {
  const sender = context.values.sender;
  if (typeof sender !== 'string' || sender === '') {
    throw new UsageError('log forget needs --sender ID', 'e.g. `tern log forget --sender 123456789`.');
  }
  try {
    return report(await forgetSender(dir, sender), context, `forgot ${sender}`);
  } catch (error) {
    throw locked(error, 'rewrite');
  }
}

/** `tern log import FILE`: an archive's events back into the log (those it holds already are skipped). */
export async function importFile(dir: string, file: string, context: CommandContext): Promise<number> {
  try {
    const result = await importArchive(dir, resolve(context.cwd ?? process.cwd(), file));
    const { imported, skipped } = result;
    if (context.json) print(context.stdout, JSON.stringify({ ok: true, imported, skipped }));
    else print(context.stdout, `imported ${imported} events, ${skipped} already in the log`);
    return 0;
  } catch (error) {
    if (!(error instanceof LogError && error.code === 'archive_unreadable')) throw locked(error, 'rewrite');
    const fix = 'Name a file `tern log compact` wrote, e.g. `tern log import sessions/archive/1-5000.jsonl.gz`.';
    throw new CliError('archive_unreadable', 'cannot import that file', error.message, fix);
  }
}

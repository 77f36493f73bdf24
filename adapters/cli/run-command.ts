import { parseArgs } from 'node:util';
import { LOG_CORRUPTED_FIX, logCorruption } from '../../store/log/errors.js';
import type { CommandContext, CommandSpec } from './command.js';
import { CliError, UsageError } from './errors.js';
import { commandHelp } from './help.js';
import { redactWrites } from './printed.js';

function parse(spec: CommandSpec, argv: string[]) {
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([name, o]) => [
      name,
      { type: o.type, multiple: o.multiple ?? false, ...(o.short ? { short: o.short } : {}) },
    ]),
  );
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad arguments', `Run \`tern ${spec.name} --help\`.`);
  }
}

/** A thrown error as the one line the user reads, or the JSON body `--json` callers parse. */
function report(thrown: unknown, context: Pick<CommandContext, 'json' | 'stdout' | 'stderr'>): number {
  // A damaged event log is met by whichever command reads it first: each says what to do about it.
  const damaged = thrown instanceof CliError ? undefined : logCorruption(thrown);
  const error = damaged
    ? new CliError('log_corrupted', 'the event log is damaged', damaged.message, LOG_CORRUPTED_FIX)
    : thrown;
  const known = error instanceof CliError;
  const code = known ? error.code : ((error as { code?: unknown }).code?.toString() ?? 'internal');
  const message = known
    ? error.message
    : `unexpected error (${(error as Error)?.message ?? String(error)}). Run again with the same input and report it if it repeats.`;
  if (context.json) context.stdout.write(`${JSON.stringify({ ok: false, error: { code, message } })}\n`);
  else context.stderr.write(`tern: ${message}\n`);
  return known ? error.exitCode : 1;
}

export async function runCommand(spec: CommandSpec, argv: string[]): Promise<number> {
  redactWrites(process.stdout);
  redactWrites(process.stderr);
  const json = argv.includes('--json');
  const base = { json, stdout: process.stdout, stderr: process.stderr };
  try {
    const { values, positionals } = parse(spec, argv);
    if (values.help) {
      process.stdout.write(`${commandHelp(spec)}\n`);
      return 0;
    }
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      const module = await spec.load();
      const code = await module.run({ ...base, values, positionals, env: process.env, signal: controller.signal });
      return code ?? 0;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  } catch (error) {
    return report(error, base);
  }
}

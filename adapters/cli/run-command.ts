import { parseArgs } from 'node:util';
import { LOG_CORRUPTED_FIX, logCorruption } from '../../store/log/errors.js';
import type { CommandContext, CommandSpec, OptionValues } from './command.js';
import { CliError, DEFAULT_USAGE_FIX, UsageError } from './errors.js';
import { commandHelp } from './help.js';
import { parseArgsProblem } from './usage-problem.js';
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
    throw new UsageError(parseArgsProblem(error, `tern ${spec.name}`, Object.keys(spec.options)), helpFix(spec));
  }
}

const helpFix = (spec: CommandSpec): string => `Run \`tern help ${spec.name}\`.`;

/** A usage error that names no help of its own points to the command's. */
function withCommandHelp(error: unknown, spec: CommandSpec): unknown {
  if (!(error instanceof UsageError) || error.fix !== DEFAULT_USAGE_FIX) return error;
  return new UsageError(error.why, helpFix(spec));
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
    : `unexpected error (${(error as Error)?.message ?? String(error)}). ` +
      `Run again with the same input and report it if it repeats.`;
  if (context.json) context.stdout.write(`${JSON.stringify({ ok: false, error: { code, message } })}\n`);
  else context.stderr.write(`tern: ${message}\n`);
  return known ? error.exitCode : 1;
}

/** Exit codes of a command ended by a signal, as shells report them (128 + the signal's number). */
export const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * The first SIGINT or SIGTERM aborts `controller` (its reason is the signal's name): the command ends what it runs
 * and returns. A second one ends the process at once. Returns the uninstall.
 */
function onSignals(controller: AbortController): () => void {
  const handler = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (controller.signal.aborted) process.exit(SIGNAL_EXIT[signal]);
    controller.abort(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

export interface RunIo {
  stdout: CommandContext['stdout'];
  stderr: CommandContext['stderr'];
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal: AbortSignal;
  gateway?: CommandContext['gateway'];
  commands?: CommandContext['commands'];
}

/** Runs a command with its argv already split; errors become the one line (or JSON body) `report` writes. */
export async function runParsed(spec: CommandSpec, argv: string[], io: RunIo): Promise<number> {
  const json = argv.includes('--json');
  const base = { json, stdout: io.stdout, stderr: io.stderr };
  try {
    const { values, positionals } = parse(spec, argv);
    if (values.help) {
      io.stdout.write(`${commandHelp(spec)}\n`);
      return 0;
    }
    const module = await spec.load();
    const { env, signal, cwd, gateway, commands } = io;
    const context = { ...base, values, positionals, env, signal, cwd, ...(gateway ? { gateway } : {}) };
    const code = await module.run({ ...context, ...(commands ? { commands } : {}) });
    return code ?? 0;
  } catch (error) {
    return report(withCommandHelp(error, spec), base);
  }
}

export async function runCommand(
  spec: CommandSpec,
  argv: string[],
  commands?: readonly CommandSpec[],
): Promise<number> {
  redactWrites(process.stdout);
  redactWrites(process.stderr);
  const controller = new AbortController();
  const uninstall = onSignals(controller);
  const { stdout, stderr, env } = process;
  const io = { stdout, stderr, env, cwd: process.cwd(), signal: controller.signal, ...(commands ? { commands } : {}) };
  try {
    if (spec.inGateway) {
      const parsed = parsedOf(spec, argv);
      if (parsed && spec.inGateway(parsed.positionals, parsed.values)) {
        const failed = (error: unknown): number => report(error, { json: argv.includes('--json'), ...io });
        const forwarded = await inRunningGateway(spec, argv, io).catch(failed);
        if (forwarded !== undefined) return forwarded;
      }
    }
    return await runParsed(spec, argv, io);
  } finally {
    uninstall();
  }
}

/** argv parsed, or undefined when it does not parse or asks for help (the command's own run then answers). */
function parsedOf(spec: CommandSpec, argv: string[]): { positionals: string[]; values: OptionValues } | undefined {
  try {
    const { values, positionals } = parse(spec, argv);
    return values.help ? undefined : { positionals, values };
  } catch {
    return undefined;
  }
}

/** The command run by this home's gateway, its output copied here; undefined when no gateway runs. */
async function inRunningGateway(spec: CommandSpec, argv: string[], io: RunIo): Promise<number | undefined> {
  const { findGateway } = await import('./gateway-link.js');
  const gateway = await findGateway(io.env);
  if (!gateway) return undefined;
  const { runResultSchema } = await import('../control/protocol.js');
  try {
    const output = (stream: 'stdout' | 'stderr', text: string): void => void io[stream].write(text);
    const request = { type: 'run' as const, command: spec.name, argv, cwd: io.cwd };
    const { code } = await gateway.request(request, runResultSchema, { output, signal: io.signal });
    return code;
  } finally {
    gateway.close();
  }
}

/**
 * A failure the user can fix. It prints as one line: `tern: <what> (<why>). <how to fix>`.
 * Exit code 1, or 2 for a usage error.
 */
export class CliError extends Error {
  constructor(
    readonly code: string,
    readonly what: string,
    readonly why: string,
    readonly fix: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(`${what} (${why}). ${fix}`);
    this.name = 'CliError';
  }
}

/** The fix a usage error names when it names none; a command's run points to its own help instead. */
export const DEFAULT_USAGE_FIX = 'Run `tern --help` to see the commands and their options.';

export class UsageError extends CliError {
  constructor(why: string, fix = DEFAULT_USAGE_FIX) {
    super('usage', 'wrong usage', why, fix, 2);
  }
}

/** A missing or unknown subcommand, in the same words for every command that has them. */
export function subcommandError(command: string, given: string | undefined, allowed: readonly string[]): UsageError {
  const choices = `allowed: ${allowed.join(', ')}`;
  return new UsageError(
    given === undefined
      ? `tern ${command} needs a subcommand (${choices})`
      : `"${given}" is not a subcommand of tern ${command} (${choices})`,
    `Run \`tern ${command} --help\`.`,
  );
}

/** An error said elsewhere in full (the gateway's answer to a request it could not serve), printed as it was said. */
export class SaidError extends CliError {
  constructor(code: string, said: string, exitCode: 1 | 2 = 1) {
    super(code, said, '', '', exitCode);
    this.message = said;
  }
}

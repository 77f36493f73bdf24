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

export class UsageError extends CliError {
  constructor(why: string, fix = 'Run `tern --help` to see the commands and their options.') {
    super('usage', 'wrong usage', why, fix, 2);
  }
}

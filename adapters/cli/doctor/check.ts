/** One finding of `tern doctor`. */
export interface Check {
  /** What was looked at: `node`, `config`, `model fast`, `channel telegram`, … */
  name: string;
  /** `fixed`: it was wrong and `--fix` put it right. `skipped`: not looked at (`--offline`, nothing to look at). */
  status: 'ok' | 'warn' | 'error' | 'fixed' | 'skipped';
  message: string;
  /** Lines under the message: each problem of the config, each file. */
  details?: string[];
  /** What to do about a warning or an error. */
  fix?: string;
}

export const check = (
  name: string,
  status: Check['status'],
  message: string,
  extra: Pick<Check, 'details' | 'fix'> = {},
): Check => ({ name, status, message, ...extra });

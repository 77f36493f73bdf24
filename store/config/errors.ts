export type ConfigErrorCode = 'config_invalid' | 'config_unknown_version' | 'config_unreadable' | 'credentials_invalid';

/**
 * The config cannot be used. `problems` lists every reason at once, each as `path: message (allowed: …)`,
 * so a user fixes the file in one pass.
 */
export class ConfigError extends Error {
  constructor(
    readonly code: ConfigErrorCode,
    readonly file: string,
    readonly problems: string[],
    /** Lines of the file that show the problem (a JSON syntax error's line, a caret under the place). */
    readonly excerpt: string[] = [],
  ) {
    super(`${file}: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

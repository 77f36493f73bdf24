import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { expandHome } from '../paths.js';

/** A problem in an `env_file`, named by line so the user can find it. */
export class EnvFileError extends Error {
  readonly code = 'mcp_env_file_invalid';
  constructor(
    readonly file: string,
    readonly line: number,
    why: string,
  ) {
    super(`${file}:${line}: ${why} (allowed: KEY=value, export KEY=value, # comments, blank lines)`);
    this.name = 'EnvFileError';
  }
}

const LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function unquote(raw: string, file: string, line: number): string {
  const quote = raw[0];
  if (quote === '"' || quote === "'") {
    const end = raw.indexOf(quote, 1);
    if (end < 0) throw new EnvFileError(file, line, `unterminated ${quote} quote`);
    const inner = raw.slice(1, end);
    return quote === '"' ? inner.replace(/\\([nrt"\\])/g, (_, c: string) => ESCAPES[c] ?? c) : inner;
  }
  // An unquoted value ends at a ` #` comment, as in shells and dotenv.
  return raw.replace(/\s+#.*$/, '').trim();
}

/** Parses dotenv text: comments, blank lines, `export`, single and double quotes (with escapes in double). */
export function parseEnvFile(text: string, file = 'env_file'): Record<string, string> {
  const env: Record<string, string> = {};
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const trimmed = rawLine.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const match = LINE.exec(trimmed);
    if (!match) throw new EnvFileError(file, index + 1, 'not a KEY=value line');
    env[match[1]!] = unquote(match[2]!, file, index + 1);
  });
  return env;
}

/** An MCP server's `env_file` (`~` expanded, relative to AGENT_HOME), parsed; `EnvFileError` when unreadable or bad. */
export function readEnvFile(path: string, home: string): Record<string, string> {
  const expanded = expandHome(path);
  const file = isAbsolute(expanded) ? expanded : join(home, expanded);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new EnvFileError(file, 0, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  return parseEnvFile(text, file);
}

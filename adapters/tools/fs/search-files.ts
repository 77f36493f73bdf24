import { closeSync, readSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { relative } from 'node:path';
import picomatch from 'picomatch';
import * as z from 'zod';
import type { SearchFilesOptions } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { isWithin } from '../sandbox/resolve-real.js';
import { ok, ToolError, type Tool } from '../tool.js';
import { withPath } from './fs-error.js';
import { holdFolder } from './open-checked.js';
import { walkFiles, type FoundFile } from './walk-files.js';

const MAX_LINE_CHARS = 300;
const FILES_PER_BATCH = 256;

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('A regular expression (mode "content") or a glob such as "*.ts" or "src/**/*.md" (mode "name")'),
  mode: z
    .enum(['content', 'name'])
    .optional()
    .describe('"content" searches inside files (default); "name" matches file names'),
  path: z
    .string()
    .optional()
    .describe('Folder to search, relative to the workspace or absolute (default: the workspace)'),
  include: z.string().optional().describe('In mode "content", only files whose name matches this glob'),
  ignore_case: z.boolean().optional().describe('Case-insensitive regular expression (default false)'),
  offset: z.number().int().min(0).optional().describe('Matches to skip, for the next page (default 0)'),
  limit: z.number().int().min(1).optional().describe('Matches per page (default 50)'),
});

type Args = z.infer<typeof parameters>;
type Matcher = (file: FoundFile, shown: string) => string[];

function globOf(glob: string): (path: string) => boolean {
  return picomatch(glob, { dot: true, basename: !glob.includes('/') });
}

function regexOf(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new ToolError('invalid_regex', `pattern is not a valid regular expression (${(error as Error).message})`);
  }
}

function contentMatcher(args: Args, options: SearchFilesOptions): Matcher {
  const regex = regexOf(args.pattern, args.ignore_case ?? false);
  const included = args.include ? globOf(args.include) : () => true;
  return (file, shown) => {
    if (!included(shown)) return [];
    const bytes = readSmallFile(file, options.maxFileBytes);
    if (!bytes) return [];
    if (bytes.subarray(0, 8192).includes(0)) return [];
    return matchingLines(bytes.toString('utf8'), regex, shown);
  };
}

/**
 * The lines of `text` that `regex` matches, as `path:line: text`. Each line is tested on its own, as if split at
 * `\n`, but without an array of every line and an empty one for each line that does not match: most lines of most
 * files do not, and those arrays made a search's garbage grow with the lines it read rather than the lines it found.
 */
function matchingLines(text: string, regex: RegExp, shown: string): string[] {
  const found: string[] = [];
  for (let start = 0, number = 1; ; number++) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end);
    if (regex.test(line)) found.push(`${shown}:${number}: ${line.slice(0, MAX_LINE_CHARS)}`);
    if (end === -1) return found;
    start = end + 1;
  }
}

/**
 * A file's bytes when it is small enough to scan; `undefined` for a large, hard-linked or special file, or one that
 * vanished or cannot be read (one bad file must not end the search). One open serves both the size check and the read.
 */
function readSmallFile(file: FoundFile, maxBytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    // Opened as checked: a regular file with one link (a hard-linked file is never read: Sandbox.resolve says why).
    const opened = file.open();
    fd = opened.fd;
    const { size } = opened.stats;
    if (size > maxBytes) return undefined;
    const bytes = Buffer.allocUnsafe(size);
    return bytes.subarray(0, readSync(fd, bytes, 0, size, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function nameMatcher(args: Args): Matcher {
  const matches = globOf(args.pattern);
  return (_file, shown) => (matches(shown) ? [shown] : []);
}

/** One page of matches from the walk, with a note when the page or the time budget ran out. */
async function pageOf(
  files: Iterable<FoundFile>,
  args: Args,
  options: SearchFilesOptions,
  show: (path: string) => string,
): Promise<string> {
  const matcher = args.mode === 'name' ? nameMatcher(args) : contentMatcher(args, options);
  const offset = args.offset ?? 0;
  const limit = Math.min(args.limit ?? 50, options.maxMatches);
  const deadline = Date.now() + options.timeBudgetMs;
  const page: string[] = [];
  let seen = 0;
  let chars = 0;
  let stop: string | undefined;
  let count = 0;
  search: for (const file of files) {
    if (++count % FILES_PER_BATCH === 0) await yieldToLoop();
    if (Date.now() > deadline) {
      const budget = `${options.timeBudgetMs} ms time budget`;
      stop = `stopped at the ${budget}; results may be incomplete, narrow the path or pattern`;
      break;
    }
    for (const match of matcher(file, show(file.path))) {
      seen += 1;
      if (seen <= offset) continue;
      if (page.length >= limit || chars + match.length > options.maxOutputChars) {
        stop = `more matches; continue with offset=${offset + page.length}`;
        break search;
      }
      page.push(match);
      chars += match.length + 1;
    }
  }
  const body = page.length > 0 ? page.join('\n') : 'no matches';
  return stop ? `${body}\n\n[search_files: ${stop}]` : body;
}

export function searchFilesTool(sandbox: Sandbox, options: SearchFilesOptions): Tool<Args> {
  const display = (file: string) => (isWithin(file, sandbox.workspace) ? relative(sandbox.workspace, file) : file);
  return {
    name: 'search_files',
    description:
      'Search file contents by regular expression, or file names by glob. ' +
      'Results are paginated; protected files are never searched.',
    parameters,
    execute: (args) =>
      withPath(args.path ?? '.', async () => {
        const root = holdFolder(sandbox, args.path ?? '.');
        try {
          return ok(await pageOf(walkFiles(sandbox, root), args, options, display));
        } finally {
          root.close();
        }
      }),
  };
}

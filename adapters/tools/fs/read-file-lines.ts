import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import * as z from 'zod';
import type { ReadFileOptions } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, type Tool } from '../tool.js';
import { withPath } from './fs-error.js';
import { openChecked } from './open-checked.js';

const parameters = z.object({
  path: z.string().describe('File to read, relative to the workspace or absolute'),
  start_line: z.number().int().min(1).optional().describe('First line to return, 1-indexed (default 1)'),
  max_lines: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Lines to return at most (default: all remaining, within the byte budget)'),
});

type Page = { lines: string[]; last: number; more: boolean };

/** Reads from `fd` (which the stream closes) a page of lines. */
async function readPage(fd: number, start: number, maxLines: number, budget: number): Promise<Page> {
  const stream = createReadStream('', { fd, encoding: 'utf8' });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  let number = 0;
  let bytes = 0;
  try {
    for await (const line of reader) {
      number += 1;
      if (number < start) continue;
      const size = Buffer.byteLength(line) + 1;
      if (lines.length >= maxLines || (bytes + size > budget && lines.length > 0))
        return { lines, last: number - 1, more: true };
      if (size > budget)
        return { lines: [Buffer.from(line).subarray(0, budget).toString('utf8')], last: number, more: true };
      lines.push(line);
      bytes += size;
    }
    return { lines, last: number, more: false };
  } finally {
    reader.close();
    stream.destroy();
  }
}

export function readFileLinesTool(sandbox: Sandbox, options: ReadFileOptions): Tool<z.infer<typeof parameters>> {
  return {
    name: 'read_file',
    description:
      `Read a text file by lines. Returns at most ${options.maxReadFileSize} ` +
      `bytes per call; a note tells the next start_line when more remains.`,
    parameters,
    execute: ({ path, start_line = 1, max_lines = Infinity }) =>
      withPath(path, async () => {
        const { fd } = openChecked(sandbox, path, 'read');
        const page = await readPage(fd, start_line, max_lines, options.maxReadFileSize);
        const text = page.lines.join('\n');
        if (!page.more) return ok(text);
        return ok(
          `${text}\n\n[read_file: lines ${start_line}-${page.last}; continue with start_line=${page.last + 1}]`,
        );
      }),
  };
}

import * as z from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, ToolError, type Tool, type ToolResult } from '../tool.js';
import { closeDescriptor, readWhole, truncate, writeAll } from './descriptor-io.js';
import { withPath } from './fs-error.js';
import { openChecked } from './open-checked.js';

const parameters = z.object({
  path: z.string().describe('File to edit, relative to the workspace or absolute'),
  old_text: z.string().min(1).describe('Exact text to replace; it must occur exactly once in the file'),
  new_text: z.string().describe('Text to put in its place'),
});

function countOf(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) count += 1;
  return count;
}

export function editFileTool(sandbox: Sandbox): Tool<z.infer<typeof parameters>> {
  return {
    name: 'edit_file',
    description: 'Replace one exact occurrence of old_text with new_text in a file.',
    parameters,
    execute: ({ path, old_text, new_text }) =>
      withPath(path, async () => {
        const { fd } = openChecked(sandbox, path, 'edit');
        try {
          return await replaceOnce(fd, path, old_text, new_text);
        } finally {
          await closeDescriptor(fd);
        }
      }),
  };
}

/** Reads, changes and writes back through the one descriptor that was checked. */
async function replaceOnce(fd: number, path: string, oldText: string, newText: string): Promise<ToolResult> {
  const text = (await readWhole(fd)).toString('utf8');
  const count = countOf(text, oldText);
  if (count === 0) {
    throw new ToolError('no_match', `old_text was not found in ${path}; read the file and copy the text exactly`);
  }
  if (count > 1) {
    throw new ToolError(
      'ambiguous_match',
      `old_text matches ${count} places in ${path}; include more surrounding text so it matches exactly once`,
    );
  }
  const at = text.indexOf(oldText);
  await truncate(fd, 0);
  await writeAll(fd, Buffer.from(text.slice(0, at) + newText + text.slice(at + oldText.length)), 0);
  return ok(`edited ${path}`);
}

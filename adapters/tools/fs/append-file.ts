import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, type Tool } from '../tool.js';
import { withPath } from './fs-error.js';

const parameters = z.object({
  path: z.string().describe('File to append to, relative to the workspace or absolute; created if missing'),
  content: z.string().describe('Text to add at the end of the file'),
});

export function appendFileTool(sandbox: Sandbox): Tool<z.infer<typeof parameters>> {
  return {
    name: 'append_file',
    description: 'Append text to the end of a file, creating it if it does not exist.',
    parameters,
    execute: ({ path, content }) =>
      withPath(path, async () => {
        const real = sandbox.resolve(path, 'write');
        await mkdir(dirname(real), { recursive: true });
        await appendFile(real, content);
        return ok(`appended ${Buffer.byteLength(content)} bytes to ${path}`);
      }),
  };
}

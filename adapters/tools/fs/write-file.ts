import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, type Tool } from '../tool.js';
import { withPath } from './fs-error.js';

const parameters = z.object({
  path: z.string().describe('File to write, relative to the workspace or absolute; parent folders are created'),
  content: z.string().describe('The complete new content of the file'),
  overwrite: z.boolean().optional().describe('Must be true to replace a file that already exists (default false)'),
});

export function writeFileTool(sandbox: Sandbox): Tool<z.infer<typeof parameters>> {
  return {
    name: 'write_file',
    description: 'Create a file with the given content. Replacing an existing file needs overwrite: true.',
    parameters,
    execute: ({ path, content, overwrite = false }) =>
      withPath(path, async () => {
        const real = sandbox.resolve(path, 'write_file');
        await mkdir(dirname(real), { recursive: true });
        await writeFile(real, content, { flag: overwrite ? 'w' : 'wx' });
        return ok(`wrote ${Buffer.byteLength(content)} bytes to ${path}`);
      }),
  };
}

import * as z from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, type Tool } from '../tool.js';
import { closeDescriptor, truncate, writeAll } from './descriptor-io.js';
import { withPath } from './fs-error.js';
import { openChecked } from './open-checked.js';

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
        const { fd } = openChecked(sandbox, path, overwrite ? 'replace' : 'create');
        try {
          await truncate(fd, 0);
          await writeAll(fd, Buffer.from(content), 0);
        } finally {
          await closeDescriptor(fd);
        }
        return ok(`wrote ${Buffer.byteLength(content)} bytes to ${path}`);
      }),
  };
}

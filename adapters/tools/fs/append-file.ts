import * as z from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, type Tool } from '../tool.js';
import { closeDescriptor, writeAll } from './descriptor-io.js';
import { withPath } from './fs-error.js';
import { openChecked } from './open-checked.js';

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
        const { fd } = openChecked(sandbox, path, 'append');
        try {
          await writeAll(fd, Buffer.from(content), null);
        } finally {
          await closeDescriptor(fd);
        }
        return ok(`appended ${Buffer.byteLength(content)} bytes to ${path}`);
      }),
  };
}

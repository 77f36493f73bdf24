import * as z from 'zod';
import type { ReadFileOptions } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, type Tool } from '../tool.js';
import { closeDescriptor, readAt } from './descriptor-io.js';
import { withPath } from './fs-error.js';
import { openChecked } from './open-checked.js';

const parameters = z.object({
  path: z.string().describe('File to read, relative to the workspace or absolute'),
  offset: z.number().int().min(0).optional().describe('Byte to start at (default 0)'),
  length: z.number().int().min(1).optional().describe('Bytes to read (default and maximum: the read limit)'),
});

/** Text when the bytes are text; binary content is sent as base64 so nothing is silently mangled. */
function render(bytes: Buffer): string {
  return bytes.includes(0)
    ? `[binary: ${bytes.length} bytes as base64]\n${bytes.toString('base64')}`
    : bytes.toString('utf8');
}

export function readFileBytesTool(sandbox: Sandbox, options: ReadFileOptions): Tool<z.infer<typeof parameters>> {
  return {
    name: 'read_file',
    description:
      `Read a file by byte range (binary-safe). Returns at most ${options.maxReadFileSize} ` +
      `bytes per call; a note tells the next offset when more remains.`,
    parameters,
    execute: ({ path, offset = 0, length }) =>
      withPath(path, async () => {
        const { fd, stats } = openChecked(sandbox, path, 'read');
        try {
          const { size } = stats;
          const wanted = Math.min(length ?? options.maxReadFileSize, options.maxReadFileSize);
          const buffer = Buffer.alloc(Math.max(0, Math.min(wanted, size - offset)));
          const { bytesRead } = await readAt(fd, buffer, 0, buffer.length, offset);
          const end = offset + bytesRead;
          const whole = offset === 0 && end === size;
          const note = end < size ? `; continue with offset=${end}` : '';
          return ok(
            whole
              ? render(buffer)
              : `${render(buffer.subarray(0, bytesRead))}\n\n[read_file: bytes ${offset}-${end} of ${size}${note}]`,
          );
        } finally {
          await closeDescriptor(fd);
        }
      }),
  };
}

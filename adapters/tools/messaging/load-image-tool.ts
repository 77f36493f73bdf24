import { statSync } from 'node:fs';
import { z } from 'zod';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ok, ToolError, type Tool } from '../tool.js';
import { attachment } from './attachments.js';

/** Vision inputs larger than this are refused by the vendors anyway. */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

const parameters = z.object({
  path: z.string().describe('The local image to look at (png, jpg, gif or webp)'),
});

export function loadImageTool(sandbox: Sandbox): Tool<z.infer<typeof parameters>> {
  return {
    name: 'load_image',
    description: 'Load a local image so you can see it in the next step.',
    parameters,
    async execute({ path }) {
      const media = attachment(sandbox, path);
      if (media.kind !== 'image') throw new ToolError('not_an_image', `${path} is not an image (png, jpg, gif or webp)`);
      const size = statSync(media.path).size;
      if (size > MAX_IMAGE_BYTES) throw new ToolError('image_too_large', `${path} is ${size} bytes; images over ${MAX_IMAGE_BYTES} bytes cannot be loaded`);
      return ok(`loaded image ${path} (${media.mime}, ${size} bytes)`, [media]);
    },
  };
}

import { readFile, stat } from 'node:fs/promises';
import * as z from 'zod';
import { prepareImage, type PreparedImage } from '../media/image-part.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ToolError, type Tool, type ToolResult } from '../tool.js';
import { attachment } from './attachments.js';

/** Files larger than this are not read at all: no photo a model should see is this large. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

const parameters = z.object({
  path: z.string().describe('The local image to look at (png, jpg, gif or webp)'),
});

function describe(path: string, image: PreparedImage): string {
  const { original, sent, part } = image;
  const held = `${original.width}×${original.height}, ${original.bytes} bytes`;
  if (image.unchanged) return `Loaded image ${path} (${part.mime}, ${held}); it is attached below.`;
  return (
    `Loaded image ${path} (${held}); it is attached below, scaled to ` +
    `${sent.width}×${sent.height} (${part.mime}, ${sent.bytes} bytes).`
  );
}

/**
 * `load_image`: the model sees the image in its next step, as an image part of the tool's answer (each protocol
 * family has its own shape). Only that turn's model calls carry it; the log keeps the part as sent.
 */
export function loadImageTool(sandbox: Sandbox): Tool<z.infer<typeof parameters>> {
  return {
    name: 'load_image',
    description: 'Load a local image so you can see it in the next step.',
    parameters,
    async execute({ path }): Promise<ToolResult> {
      const media = attachment(sandbox, path);
      if (media.kind !== 'image')
        throw new ToolError('not_an_image', `${path} is not an image (png, jpg, gif or webp)`);
      const { size } = await stat(media.path);
      if (size > MAX_FILE_BYTES)
        throw new ToolError(
          'image_too_large',
          `${path} is ${size} bytes; images over ${MAX_FILE_BYTES} bytes cannot be loaded`,
        );
      const image = await prepareImage(await readFile(media.path), path);
      return {
        ok: true,
        content: describe(path, image),
        media: [{ ...media, mime: image.part.mime }],
        images: [image.part],
      };
    },
  };
}

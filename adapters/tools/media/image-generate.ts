import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { generateImage } from '../../providers/image-generation.js';
import type { ModelEntry } from '../../providers/model-entry.js';
import { ok, type Tool } from '../tool.js';

const parameters = z.object({
  prompt: z.string().min(1).describe('What the image should show, in detail'),
});

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** Draws an image with the configured image model and saves it in the workspace under `media/images/`. */
export function imageGenerateTool(entry: ModelEntry, workspace: string): Tool<z.infer<typeof parameters>> {
  return {
    name: 'image_generate',
    description: 'Generate an image from a text prompt. The image is saved in the workspace and sent to the user as media.',
    parameters,
    async execute({ prompt }, context) {
      const image = await generateImage(entry, prompt, { signal: context.signal });
      const relative = join('media', 'images', `${context.turn ?? 'image'}-${Date.now().toString(36)}.${EXTENSIONS[image.mime] ?? 'png'}`);
      const path = join(workspace, relative);
      await mkdir(join(workspace, 'media', 'images'), { recursive: true });
      await writeFile(path, image.bytes);
      const note = image.revisedPrompt ? ` The model drew: ${image.revisedPrompt}` : '';
      return ok(`Saved the image (${image.bytes.length} bytes) to ${relative}.${note} [file:${relative}]`, [{ kind: 'image', path, mime: image.mime }]);
    },
  };
}

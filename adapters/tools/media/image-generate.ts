import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { generateImage } from '../../providers/image-generation.js';
import type { ModelEntry } from '../../providers/model-entry.js';
import { targetOf } from '../messaging/attachments.js';
import { holderOf } from '../messaging/send-result.js';
import type { SendFunction, SendOutcome, SendTarget } from '../options.js';
import { ok, type Tool } from '../tool.js';

const parameters = z.object({
  prompt: z.string().min(1).describe('What the image should show, in detail'),
});

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/** What became of the image, as the rest of a sentence that began "Saved the image … and". */
function sentPhrase(outcome: SendOutcome, target: SendTarget): string {
  const where = `${target.channel}:${target.chat}`;
  switch (outcome.kind) {
    case 'sent':
      return `sent it to ${where}`;
    case 'relayed':
      return `handed it to ${holderOf(outcome.to)} for ${where}`;
    case 'not_delivered':
      return `could not send it to the chat (${outcome.reason})`;
  }
}

/**
 * Draws an image with the configured image model, saves it in the workspace under `media/images/` and sends it to
 * the chat the turn came from (where the runtime can send: a gateway's channels, not `tern agent`).
 */
export function imageGenerateTool(
  entry: ModelEntry,
  workspace: string,
  send?: SendFunction,
): Tool<z.infer<typeof parameters>> {
  return {
    name: 'image_generate',
    description: send
      ? 'Generate an image from a text prompt. The image is sent to the user in this chat and saved in the workspace.'
      : 'Generate an image from a text prompt. The image is saved in the workspace.',
    parameters,
    async execute({ prompt }, context) {
      const image = await generateImage(entry, prompt, { signal: context.signal });
      const relative = join(
        'media',
        'images',
        `${context.turn ?? 'image'}-${Date.now().toString(36)}.${EXTENSIONS[image.mime] ?? 'png'}`,
      );
      const path = join(workspace, relative);
      await mkdir(join(workspace, 'media', 'images'), { recursive: true });
      await writeFile(path, image.bytes);
      const media = [{ kind: 'image' as const, path, mime: image.mime }];
      const drew = image.revisedPrompt ? ` The model drew: ${image.revisedPrompt}` : '';
      const saved = `Saved the image (${image.bytes.length} bytes) to ${relative}`;
      if (!send) return ok(`${saved}.${drew} [file:${relative}]`, media);
      const target = targetOf(context);
      // The image exists either way: a failed send is told to the model, which can say so or try send_file.
      const sent = await send(target, '', media).then(
        (outcome) => sentPhrase(outcome, target),
        (error: Error) => `could not send it to the chat (${error.message})`,
      );
      return ok(`${saved} and ${sent}.${drew} [file:${relative}]`, media);
    },
  };
}

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { ModelEntry } from '../../providers/model-entry.js';
import { synthesizeSpeech } from '../../providers/speech.js';
import { targetOf } from '../messaging/attachments.js';
import type { SendFunction } from '../options.js';
import { ok, ToolError, type Tool } from '../tool.js';

const parameters = z.object({
  text: z
    .string()
    .min(1)
    .describe('What to say, written to be spoken: short, conversational, no markdown, emoji, lists or code blocks'),
  filename: z.string().optional().describe('A name for the audio file (e.g. reply.ogg); its extension is set'),
});

/** The name asked for, kept to one plain file name with the format's extension. */
function fileName(asked: string | undefined, extension: string, fallback: string): string {
  const base = (asked ?? '')
    .replace(/^.*[\\/]/, '')
    .replace(/\.[^.]*$/, '')
    .replace(/[^\w.-]+/g, '-');
  return `${base || fallback}.${extension}`;
}

/**
 * `send_tts` (the peer runtime's tool): speaks the text with the speech model, saves the audio under `media/tts/`
 * and sends it to the chat the turn came from; a channel sends it as a voice message where it can, else as a file.
 */
export function sendTtsTool(
  entry: ModelEntry,
  workspace: string,
  send: SendFunction,
): Tool<z.infer<typeof parameters>> {
  return {
    name: 'send_tts',
    description: 'Speak text aloud: synthesize it as speech and send the audio to the user in this chat.',
    parameters,
    async execute({ text, filename }, context) {
      const speech = await synthesizeSpeech(entry, text.trim(), { signal: context.signal });
      const relative = join('media', 'tts', fileName(filename, speech.extension, `tts-${Date.now().toString(36)}`));
      await mkdir(join(workspace, 'media', 'tts'), { recursive: true });
      const path = join(workspace, relative);
      await writeFile(path, speech.bytes);
      const media = [{ kind: 'audio' as const, path, mime: speech.mime }];
      const outcome = await send(targetOf(context), '', media);
      if (outcome.kind === 'not_delivered')
        throw new ToolError('not_delivered', `the audio was saved to ${relative} but not sent (${outcome.reason})`);
      return ok(`TTS audio sent (${speech.bytes.length} bytes, ${relative})`, media);
    },
  };
}

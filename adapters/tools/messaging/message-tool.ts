import * as z from 'zod';
import type { SendFunction } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { Tool } from '../tool.js';
import { attachment, targetOf } from './attachments.js';
import { sendResult } from './send-result.js';

const base = z.object({
  content: z.string().min(1).describe('The message text'),
  channel: z.string().optional().describe('Channel to send to (default: the current one)'),
  chat_id: z.string().optional().describe('Chat to send to; required with another channel (default: the current chat)'),
});
const withMedia = base.extend({
  media: z.array(z.string()).optional().describe('Local files to attach, by path (workspace-relative or absolute)'),
});

type Args = z.infer<typeof withMedia>;

/** `message`: sends text, and with `media_enabled` local files, to the current or a named chat. */
export function messageTool(sandbox: Sandbox, send: SendFunction, mediaEnabled: boolean): Tool<Args> {
  return {
    name: 'message',
    description: mediaEnabled
      ? 'Send a message, optionally with local files attached, to the user or another chat.'
      : 'Send a message to the user or another chat.',
    parameters: mediaEnabled ? withMedia : base,
    async execute({ content, channel, chat_id, media = [] }, context) {
      const target = targetOf(context, channel, chat_id);
      const files = mediaEnabled ? media.map((path) => attachment(sandbox, path)) : [];
      const outcome = await send(target, content, files);
      const attached = files.length > 0 ? ` with ${files.length} attachment${files.length === 1 ? '' : 's'}` : '';
      const where = `${target.channel}:${target.chat}${attached}`;
      return sendResult(outcome, 'message', where, `message sent to ${where}`);
    },
  };
}

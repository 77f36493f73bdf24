import * as z from 'zod';
import type { SendFunction } from '../options.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { Tool } from '../tool.js';
import { attachment, targetOf } from './attachments.js';
import { sendResult } from './send-result.js';

const parameters = z.object({
  path: z.string().describe('The local file to send (workspace-relative or absolute)'),
  caption: z.string().optional().describe('Text to go with the file'),
  channel: z.string().optional().describe('Channel to send to (default: the current one)'),
  chat_id: z.string().optional().describe('Chat to send to; required with another channel (default: the current chat)'),
});

export function sendFileTool(sandbox: Sandbox, send: SendFunction): Tool<z.infer<typeof parameters>> {
  return {
    name: 'send_file',
    description: 'Send a local file to the user or another chat.',
    parameters,
    async execute({ path, caption = '', channel, chat_id }, context) {
      const target = targetOf(context, channel, chat_id);
      const outcome = await send(target, caption, [attachment(sandbox, path)]);
      const where = `${target.channel}:${target.chat}`;
      return sendResult(outcome, path, where, `sent ${path} to ${where}`);
    },
  };
}

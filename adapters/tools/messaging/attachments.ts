import { statSync } from 'node:fs';
import type { Sandbox } from '../sandbox/sandbox.js';
import { ToolError, type ToolContext, type ToolMedia } from '../tool.js';
import type { SendTarget } from '../options.js';
import { mediaOf } from './media-kind.js';

/** A local file to attach: it must pass the read protections and be a regular file. */
export function attachment(sandbox: Sandbox, path: string): ToolMedia {
  const real = sandbox.resolve(path, 'read');
  let isFile = false;
  try {
    isFile = statSync(real).isFile();
  } catch {
    throw new ToolError('not_found', `${path} does not exist`);
  }
  if (!isFile) throw new ToolError('not_a_file', `${path} is not a file`);
  return mediaOf(real);
}

/** The current conversation unless the model names another; another channel needs its chat too. */
export function targetOf(context: ToolContext, channel?: string, chat?: string): SendTarget {
  if (!channel || channel === context.channel) return { channel: context.channel, chat: chat ?? context.chat };
  if (!chat) throw new ToolError('missing_chat', `chat_id is required to send to another channel (${channel})`);
  return { channel, chat };
}

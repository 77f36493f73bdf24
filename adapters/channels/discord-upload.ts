import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { Routes, type REST } from 'discord.js';
import { ChannelError, type OutboundFile } from './channel.js';

/**
 * A file as an attachment of a new message in the channel (the caption its content), through discord.js's REST
 * client: `POST /channels/{id}/messages` as multipart, the file as `files[0]`. Discord shows images inline.
 */
export async function uploadToDiscord(rest: REST, channelId: string, file: OutboundFile): Promise<string> {
  const bytes = await readFile(file.path).catch((error: Error) => { throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`); });
  const name = basename(file.path);
  const body = { ...(file.caption ? { content: file.caption } : {}), attachments: [{ id: 0, filename: name }] };
  const sent = await rest.post(Routes.channelMessages(channelId), { body, files: [{ name, data: bytes, ...(file.mime ? { contentType: file.mime } : {}) }] })
    .catch((error: Error) => { throw new ChannelError('platform', `Discord upload failed (${error.message})`); });
  return (sent as { id: string }).id;
}

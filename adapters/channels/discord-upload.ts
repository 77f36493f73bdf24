import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename } from 'node:path';
import type { REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { ChannelError, type OutboundFile } from './channel.js';

type RestDispatcher = NonNullable<Parameters<REST['post']>[1]>['dispatcher'];
let ownAgent: RestDispatcher | undefined;

/**
 * `@discordjs/rest` is built on an undici of its own (6); without a dispatcher it takes the process's global
 * one, which is that of whichever undici loaded first (ours, 7, in a gateway), and undici 7 cannot send the form of
 * an upload made by undici 6 ("action is not a function"). An upload goes through an agent of the undici the REST
 * client itself requires.
 */
function restAgent(): RestDispatcher {
  if (!ownAgent) {
    const fromRest = createRequire(createRequire(import.meta.url).resolve('@discordjs/rest'));
    const { Agent } = fromRest('undici') as { Agent: new () => NonNullable<RestDispatcher> };
    ownAgent = new Agent();
  }
  return ownAgent;
}

/**
 * A file as an attachment of a new message in the channel (the caption its content), through `@discordjs/rest`
 * client: `POST /channels/{id}/messages` as multipart, the file as `files[0]`. Discord shows images inline.
 */
export async function uploadToDiscord(rest: REST, channelId: string, file: OutboundFile): Promise<string> {
  const bytes = await readFile(file.path).catch((error: Error) => {
    throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
  });
  const name = basename(file.path);
  const body = { ...(file.caption ? { content: file.caption } : {}), attachments: [{ id: 0, filename: name }] };
  const files = [{ name, data: bytes, ...(file.mime ? { contentType: file.mime } : {}) }];
  const sent = await rest
    .post(Routes.channelMessages(channelId), { body, files, dispatcher: restAgent() })
    .catch((error: Error) => {
      throw new ChannelError('platform', `Discord upload failed (${error.message})`);
    });
  return (sent as { id: string }).id;
}

import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

const attachmentSchema = z.looseObject({
  content_type: z.string().optional(),
  filename: z.string().optional(),
  url: z.string().optional(),
  voice_wav_url: z.string().optional(),
});

/** A user's message as QQ dispatches it (C2C, group @, guild channel @). */
export const qqMessageSchema = z.looseObject({
  id: z.string(),
  content: z.string().default(''),
  author: z.looseObject({
    id: z.string().optional(),
    user_openid: z.string().optional(),
    member_openid: z.string().optional(),
    username: z.string().optional(),
    bot: z.boolean().optional(),
  }),
  group_openid: z.string().optional(),
  channel_id: z.string().optional(),
  guild_id: z.string().optional(),
  attachments: z.array(attachmentSchema).optional(),
});
export type QqMessage = z.infer<typeof qqMessageSchema>;

/** Gateway frames: `op` 10 hello, 0 dispatch (`t`, `s`, `d`), 11 heartbeat ack, 7 reconnect, 9 invalid session. */
export const qqFrameSchema = z.looseObject({
  op: z.number(),
  s: z.number().nullish(),
  t: z.string().nullish(),
  d: z.unknown().optional(),
});

/** The message kinds a bot receives, with the intent that subscribes to them. */
export const QQ_INTENTS = {
  GUILD_AT: 1 << 30,
  GROUP_AND_C2C: 1 << 25,
};

const https = (url: string | undefined): string | undefined => (url?.startsWith('//') ? `https:${url}` : url);

/**
 * A dispatched message in the dispatch vocabulary; `replyTo` names the API it is answered through and, after `#`, the
 * message an answer replies to passively.
 */
export function fromQqMessage(type: string, message: QqMessage): ChannelMessage | undefined {
  if (message.author.bot) return undefined;
  const audio = (message.attachments ?? [])
    .filter((a) => a.content_type === 'voice' || a.content_type?.startsWith('audio/'))
    .map((a) => ({
      fileId: https(a.voice_wav_url ?? a.url) ?? '',
      mime: a.voice_wav_url ? 'audio/wav' : 'audio/silk',
      name: a.voice_wav_url ? 'voice.wav' : (a.filename ?? 'voice.silk'),
    }))
    .filter((a) => a.fileId !== '');
  const media = (message.attachments ?? [])
    .filter((a) => a.content_type?.startsWith('image/') && a.url)
    .map((a) => ({
      kind: 'image' as const,
      fileId: https(a.url) ?? '',
      mime: a.content_type ?? 'image/jpeg',
      name: a.filename ?? 'image.jpg',
    }));
  const text = message.content.replace(/<@!?\w+>/g, '').trim();
  if (text === '' && audio.length === 0 && media.length === 0) return undefined;
  const base = {
    messageId: message.id,
    text,
    ...(audio.length > 0 ? { audio } : {}),
    ...(media.length > 0 ? { media } : {}),
  };
  switch (type) {
    case 'C2C_MESSAGE_CREATE': {
      const user = message.author.user_openid ?? message.author.id;
      if (!user) return undefined;
      return {
        ...base,
        chat: `direct:${user}`,
        replyTo: `c2c:${user}#${message.id}`,
        sender: user,
        senderAliases: [user],
        mentioned: false,
      };
    }
    case 'GROUP_AT_MESSAGE_CREATE': {
      const member = message.author.member_openid ?? message.author.id;
      if (!member || !message.group_openid) return undefined;
      return {
        ...base,
        chat: `group:${message.group_openid}`,
        replyTo: `group:${message.group_openid}#${message.id}`,
        sender: member,
        senderAliases: [member],
        mentioned: true,
      };
    }
    case 'AT_MESSAGE_CREATE': {
      const user = message.author.id;
      if (!user || !message.channel_id) return undefined;
      const aliases = message.author.username ? [user, `@${message.author.username}`] : [user];
      return {
        ...base,
        chat: `channel:${message.channel_id}`,
        replyTo: `channel:${message.channel_id}#${message.id}`,
        sender: user,
        senderAliases: aliases,
        mentioned: true,
        ...(message.guild_id ? { space: `guild:${message.guild_id}` } : {}),
      };
    }
    default:
      return undefined;
  }
}

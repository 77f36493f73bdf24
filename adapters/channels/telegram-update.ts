import * as z from 'zod';
import type { ChannelMessage } from './channel.js';

const fileSchema = z.looseObject({ file_id: z.string(), mime_type: z.string().optional() });
const userSchema = z.looseObject({ id: z.number(), is_bot: z.boolean().optional(), username: z.string().optional() });

/** The parts of a Bot API update the gateway reads; everything else is ignored. */
export const telegramUpdateSchema = z.looseObject({
  update_id: z.number().int(),
  message: z
    .looseObject({
      message_id: z.number().int(),
      chat: z.looseObject({ id: z.union([z.number(), z.string()]), type: z.string() }),
      from: userSchema.optional(),
      text: z.string().optional(),
      caption: z.string().optional(),
      message_thread_id: z.number().int().optional(),
      is_topic_message: z.boolean().optional(),
      reply_to_message: z.looseObject({ from: userSchema.optional() }).optional(),
      voice: fileSchema.optional(),
      photo: z.array(z.looseObject({ file_id: z.string(), width: z.number().optional() })).optional(),
      document: fileSchema.extend({ file_name: z.string().optional() }).optional(),
      video: fileSchema.extend({ file_name: z.string().optional() }).optional(),
      audio: fileSchema.extend({ file_name: z.string().optional() }).optional(),
    })
    .optional(),
  /** A press of an inline keyboard button: its `data` is the text the button stands for. */
  callback_query: z
    .looseObject({
      id: z.string(),
      from: userSchema,
      data: z.string().optional(),
      message: z
        .looseObject({ chat: z.looseObject({ id: z.union([z.number(), z.string()]), type: z.string() }) })
        .optional(),
    })
    .optional(),
});
export type TelegramUpdate = z.infer<typeof telegramUpdateSchema>;

export interface BotIdentity {
  id: number;
  username: string;
}

function audioOf(message: TelegramUpdate['message']): { fileId: string; mime: string; name: string } | undefined {
  if (message?.voice)
    return { fileId: message.voice.file_id, mime: message.voice.mime_type ?? 'audio/ogg', name: 'voice.ogg' };
  if (message?.audio)
    return {
      fileId: message.audio.file_id,
      mime: message.audio.mime_type ?? 'audio/mpeg',
      name: message.audio.file_name ?? 'audio.mp3',
    };
  return undefined;
}

type Media = NonNullable<ChannelMessage['media']>[number];

/** The picture (its largest size), video or document of a message. */
function mediaOf(message: TelegramUpdate['message']): Media | undefined {
  const photo = message?.photo?.at(-1);
  if (photo) return { kind: 'image', fileId: photo.file_id, mime: 'image/jpeg', name: 'photo.jpg' };
  if (message?.video)
    return {
      kind: 'video',
      fileId: message.video.file_id,
      mime: message.video.mime_type ?? 'video/mp4',
      name: message.video.file_name ?? 'video.mp4',
    };
  if (message?.document) {
    const { file_id, mime_type, file_name } = message.document;
    return {
      kind: mime_type?.startsWith('image/') ? 'image' : 'file',
      fileId: file_id,
      mime: mime_type ?? 'application/octet-stream',
      name: file_name ?? 'file',
    };
  }
  return undefined;
}

/** A forum topic's replies go to the topic: the reply address is `<chat id>#<thread id>`. */
export function telegramTarget(replyTo: string): { chat_id: string; message_thread_id?: number } {
  const [chat, thread] = replyTo.split('#');
  return thread === undefined ? { chat_id: chat! } : { chat_id: chat!, message_thread_id: Number(thread) };
}

function chatOf(type: string, id: string): string {
  if (type === 'private') return `direct:${id}`;
  if (type === 'channel') return `channel:${id}`;
  return `group:${id}`;
}

/**
 * A Bot API update as a channel message, or undefined for updates that carry no text for the bot.
 * `@botname` is removed from the text (so `/help@botname` reads as `/help`) and marks the bot as mentioned.
 */
export function fromTelegramUpdate(update: TelegramUpdate, bot: BotIdentity): ChannelMessage | undefined {
  if (update.callback_query) return fromButtonPress(update.callback_query);
  const message = update.message;
  const audio = audioOf(message);
  const media = mediaOf(message);
  const text = message?.text ?? message?.caption ?? (audio || media ? '' : undefined);
  if (!message || text === undefined || message.from?.is_bot) return undefined;
  const chatId = String(message.chat.id);
  const mentions = new RegExp(`@${bot.username}\\b`, 'gi');
  const repliedToBot = message.reply_to_message?.from?.id === bot.id;
  const sender = message.from ? String(message.from.id) : chatId;
  const topic =
    message.is_topic_message && message.message_thread_id !== undefined ? message.message_thread_id : undefined;
  return {
    messageId: `${chatId}:${message.message_id}`,
    chat: chatOf(message.chat.type, chatId),
    replyTo: topic === undefined ? chatId : `${chatId}#${topic}`,
    sender,
    senderAliases: [sender, ...(message.from?.username ? [`@${message.from.username}`] : [])],
    text: text.replace(mentions, '').trim(),
    ...(topic !== undefined ? { topic: `topic:${topic}` } : {}),
    mentioned: new RegExp(`@${bot.username}\\b`, 'i').test(text) || repliedToBot,
    ...(audio ? { audio: [audio] } : {}),
    ...(media ? { media: [media] } : {}),
  };
}

/** A button press as the message its button stands for, from the user who pressed it, in the button's chat. */
function fromButtonPress(press: NonNullable<TelegramUpdate['callback_query']>): ChannelMessage | undefined {
  if (!press.data || !press.message || press.from.is_bot) return undefined;
  const chatId = String(press.message.chat.id);
  const sender = String(press.from.id);
  return {
    messageId: `${chatId}:press:${press.id}`,
    chat: chatOf(press.message.chat.type, chatId),
    replyTo: chatId,
    sender,
    senderAliases: [sender, ...(press.from.username ? [`@${press.from.username}`] : [])],
    text: press.data,
    mentioned: true,
  };
}

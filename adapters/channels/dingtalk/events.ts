import * as z from 'zod';
import type { ChannelMessage } from '../channel.js';

/** The topic robot messages arrive on in Stream mode. */
export const ROBOT_TOPIC = '/v1.0/im/bot/messages/get';

/** A message to the bot as Stream mode delivers it (the callback's `data`, a JSON string). */
export const dingtalkMessageSchema = z.looseObject({
  msgId: z.string(),
  conversationId: z.string(),
  /** `1` a one-to-one chat, `2` a group. */
  conversationType: z.string(),
  senderId: z.string().optional(),
  senderStaffId: z.string().optional(),
  senderNick: z.string().optional(),
  chatbotUserId: z.string().optional(),
  sessionWebhook: z.string().optional(),
  sessionWebhookExpiredTime: z.number().optional(),
  isInAtList: z.boolean().optional(),
  msgtype: z.string(),
  text: z.looseObject({ content: z.string() }).optional(),
  content: z.looseObject({ downloadCode: z.string().optional(), recognition: z.string().optional() }).optional(),
});
export type DingTalkMessage = z.infer<typeof dingtalkMessageSchema>;

/**
 * Where replies go without a session webhook: `user:<staffId>` (a one-to-one chat) or `group:<openConversationId>`.
 * The same string keys the session webhook while it lasts.
 */
export function dingtalkTarget(message: DingTalkMessage): string {
  return message.conversationType === '1'
    ? `user:${message.senderStaffId ?? message.senderId ?? ''}`
    : `group:${message.conversationId}`;
}

/**
 * A robot message in the dispatch vocabulary; a voice message carries its download code for transcription, a picture
 * its download code for the workspace.
 */
export function fromDingTalkMessage(message: DingTalkMessage): ChannelMessage | undefined {
  const sender = message.senderStaffId ?? message.senderId;
  if (!sender) return undefined;
  const text = message.msgtype === 'text' ? (message.text?.content ?? '').trim() : '';
  const voice = message.msgtype === 'audio' && message.content?.downloadCode;
  const picture = message.msgtype === 'picture' && message.content?.downloadCode;
  if (text === '' && !voice && !picture) return undefined;
  const aliases = [...new Set([message.senderStaffId, message.senderId].filter((a): a is string => !!a))];
  return {
    messageId: message.msgId,
    chat: message.conversationType === '1' ? `direct:${sender}` : `group:${message.conversationId}`,
    replyTo: dingtalkTarget(message),
    sender,
    senderAliases: aliases,
    text,
    mentioned: message.conversationType !== '1' && message.isInAtList !== false,
    ...(voice ? { audio: [{ fileId: voice, mime: 'audio/amr', name: 'voice.amr' }] } : {}),
    ...(picture ? { media: [{ kind: 'image', fileId: picture, mime: 'image/jpeg', name: 'picture.jpg' }] } : {}),
  };
}

import * as z from 'zod';
import type { ChannelMessage, Choice } from './channel.js';
import { stripMention } from './mention.js';

/** The fields of a Slack Events API `message` event the gateway reads. */
export const slackMessageSchema = z.looseObject({
  type: z.literal('message'),
  subtype: z.string().optional(),
  bot_id: z.string().optional(),
  channel: z.string(),
  channel_type: z.enum(['im', 'mpim', 'channel', 'group']).optional(),
  user: z.string().optional(),
  text: z.string().optional(),
  ts: z.string(),
  thread_ts: z.string().optional(),
  team: z.string().optional(),
  /** Files shared with the message (subtype `file_share`): pictures, documents, audio clips. */
  files: z
    .array(
      z.looseObject({
        id: z.string(),
        name: z.string().optional(),
        mimetype: z.string().optional(),
        url_private_download: z.string().optional(),
      }),
    )
    .optional(),
});
export type SlackMessageEvent = z.infer<typeof slackMessageSchema>;

/** Slack advises at most 4000 characters per message for readable text. */
export const SLACK_MAX_LENGTH = 4000;

/** Replies to a thread carry its timestamp after `#`: `C123#1700000000.000100`. */
export function slackTarget(replyTo: string): { channel: string; thread_ts?: string } {
  const [channel = replyTo, thread] = replyTo.split('#');
  return thread ? { channel, thread_ts: thread } : { channel };
}

/**
 * A Slack message in the dispatch vocabulary: IMs are `direct:<channel>`, multi-person IMs `group:<channel>`,
 * channels `channel:<channel>` in space `workspace:<team>`, thread replies `topic:<thread_ts>`.
 */
export function fromSlackMessage(event: SlackMessageEvent, botUserId: string): ChannelMessage | undefined {
  const shared = event.subtype === 'file_share';
  if ((event.subtype !== undefined && !shared) || event.bot_id !== undefined || !event.user || event.text === undefined)
    return undefined;
  const { text, mentioned } = stripMention(event.text, `<@${botUserId}>`);
  const kind = slackChatKind(event);
  const files = shared ? (event.files ?? []).filter((f) => f.url_private_download) : [];
  const audio = files.filter((f) => f.mimetype?.startsWith('audio/'));
  const media = files.filter((f) => !f.mimetype?.startsWith('audio/'));
  return {
    messageId: `${event.channel}:${event.ts}`,
    chat: `${kind}:${event.channel}`,
    replyTo: event.thread_ts ? `${event.channel}#${event.thread_ts}` : event.channel,
    sender: event.user,
    senderAliases: [event.user],
    text,
    ...(event.team ? { space: `workspace:${event.team}` } : {}),
    ...(event.thread_ts ? { topic: `topic:${event.thread_ts}` } : {}),
    mentioned,
    // A file's id is its private download URL, which `download` fetches with the bot token.
    ...(audio.length
      ? {
          audio: audio.map((f) => ({
            fileId: f.url_private_download!,
            mime: f.mimetype ?? 'audio/ogg',
            name: f.name ?? 'audio',
          })),
        }
      : {}),
    ...(media.length
      ? {
          media: media.map((f) => ({
            kind: slackMediaKind(f.mimetype),
            fileId: f.url_private_download!,
            mime: f.mimetype ?? 'application/octet-stream',
            name: f.name ?? 'file',
          })),
        }
      : {}),
  };
}

function slackMediaKind(type: string | undefined): 'image' | 'video' | 'file' {
  if (type?.startsWith('image/')) return 'image';
  return type?.startsWith('video/') ? 'video' : 'file';
}

/** Buttons under a reply: one `actions` block; each button's value is the text its press sends. */
export function slackChoiceBlocks(text: string, choices: readonly Choice[]): unknown[] {
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    {
      type: 'actions',
      block_id: 'tern_choices',
      elements: choices.map((choice, i) => ({
        type: 'button',
        action_id: `tern_choice_${i}`,
        text: { type: 'plain_text', text: choice.label },
        value: choice.reply,
      })),
    },
  ];
}

/** The fields of a Bolt `block_actions` payload a button press needs. */
export const slackButtonSchema = z.looseObject({
  type: z.literal('block_actions'),
  user: z.looseObject({ id: z.string() }),
  team: z.looseObject({ id: z.string() }).nullable().optional(),
  channel: z.looseObject({ id: z.string() }).optional(),
  container: z.looseObject({ message_ts: z.string().optional(), thread_ts: z.string().optional() }).optional(),
  actions: z
    .array(z.looseObject({ action_id: z.string(), value: z.string().optional(), action_ts: z.string().optional() }))
    .min(1),
});
export type SlackButtonPress = z.infer<typeof slackButtonSchema>;

export type SlackChatKind = 'direct' | 'group' | 'channel';

/** The chat kind a message event names, for a press in the same channel later. */
export function slackChatKind(event: SlackMessageEvent): SlackChatKind {
  return event.channel_type === 'im' ? 'direct' : event.channel_type === 'mpim' ? 'group' : 'channel';
}

/**
 * A button press as the message its button stands for, in the chat of the message it sits under (so it reaches
 * the same session). `kindOf` names the chat kinds of channels seen before; an IM id (`D…`) is direct anyway.
 */
export function fromSlackButton(
  press: SlackButtonPress,
  kindOf: (channel: string) => SlackChatKind | undefined,
): ChannelMessage | undefined {
  const action = press.actions[0]!;
  const channel = press.channel?.id;
  if (!channel || !action.action_id.startsWith('tern_choice_') || !action.value) return undefined;
  const kind = kindOf(channel) ?? (channel.startsWith('D') ? 'direct' : 'channel');
  const thread = press.container?.thread_ts;
  return {
    messageId: `${channel}:press:${action.action_ts ?? press.container?.message_ts ?? action.value}`,
    chat: `${kind}:${channel}`,
    replyTo: thread ? `${channel}#${thread}` : channel,
    sender: press.user.id,
    senderAliases: [press.user.id],
    text: action.value,
    ...(press.team?.id ? { space: `workspace:${press.team.id}` } : {}),
    ...(thread ? { topic: `topic:${thread}` } : {}),
    mentioned: true,
  };
}

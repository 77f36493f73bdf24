import { z } from 'zod';
import type { ChannelMessage } from './channel.js';
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
  if (event.subtype !== undefined || event.bot_id !== undefined || !event.user || event.text === undefined) return undefined;
  const { text, mentioned } = stripMention(event.text, `<@${botUserId}>`);
  const kind = event.channel_type === 'im' ? 'direct' : event.channel_type === 'mpim' ? 'group' : 'channel';
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
  };
}

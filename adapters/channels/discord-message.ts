import { z } from 'zod';
import type { ChannelMessage } from './channel.js';
import { stripMention } from './mention.js';

/** The facts of a discord.js `Message` the gateway reads, as plain data. */
export const discordMessageSchema = z.object({
  id: z.string(),
  channelId: z.string(),
  guildId: z.string().nullable(),
  /** Set when the message was posted in a thread: the thread's parent channel. */
  threadParentId: z.string().nullable(),
  content: z.string(),
  authorId: z.string(),
  authorName: z.string(),
  authorIsBot: z.boolean(),
  /** The message replies to one of the bot's messages. */
  repliesToBot: z.boolean(),
});
export type DiscordMessageFacts = z.infer<typeof discordMessageSchema>;

/** Discord's 2000-character message limit. */
export const DISCORD_MAX_LENGTH = 2000;

/**
 * A Discord message in the dispatch vocabulary: DMs are `direct:<channel>`, guild channels
 * `channel:<channel>` in space `guild:<guild>`, threads `topic:<thread>` of their parent channel.
 */
export function fromDiscordMessage(facts: DiscordMessageFacts, botId: string): ChannelMessage | undefined {
  if (facts.authorIsBot) return undefined;
  const { text, mentioned } = stripMention(facts.content, `<@!?${botId}>`);
  if (text === '') return undefined;
  const inThread = facts.threadParentId !== null;
  const chat = facts.guildId === null ? `direct:${facts.channelId}` : `channel:${inThread ? facts.threadParentId : facts.channelId}`;
  return {
    messageId: facts.id,
    chat,
    replyTo: facts.channelId,
    sender: facts.authorId,
    senderAliases: [facts.authorId, `@${facts.authorName}`],
    text,
    ...(facts.guildId !== null ? { space: `guild:${facts.guildId}` } : {}),
    ...(inThread ? { topic: `topic:${facts.channelId}` } : {}),
    mentioned: mentioned || facts.repliesToBot,
  };
}

import * as z from 'zod';
import type { ChannelMessage, Choice } from './channel.js';
import { stripMention } from './mention.js';

/** The facts of a Discord message (a `MESSAGE_CREATE` dispatch) the gateway reads, as plain data. */
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
  /** Its attachments; a voice message is one Ogg attachment (flag IS_VOICE_MESSAGE). */
  attachments: z.array(z.object({ url: z.string(), name: z.string(), contentType: z.string().nullable() })).default([]),
});
export type DiscordMessageFacts = z.input<typeof discordMessageSchema>;

/** Discord's 2000-character message limit. */
export const DISCORD_MAX_LENGTH = 2000;

/**
 * A Discord message in the dispatch vocabulary: DMs are `direct:<channel>`, guild channels
 * `channel:<channel>` in space `guild:<guild>`, threads `topic:<thread>` of their parent channel.
 */
export function fromDiscordMessage(facts: DiscordMessageFacts, botId: string): ChannelMessage | undefined {
  if (facts.authorIsBot) return undefined;
  const { text, mentioned } = stripMention(facts.content, `<@!?${botId}>`);
  const files = facts.attachments ?? [];
  if (text === '' && files.length === 0) return undefined;
  const audio = files.filter((f) => f.contentType?.startsWith('audio/'));
  const media = files.filter((f) => !f.contentType?.startsWith('audio/'));
  const inThread = facts.threadParentId !== null;
  const chat =
    facts.guildId === null
      ? `direct:${facts.channelId}`
      : `channel:${inThread ? facts.threadParentId : facts.channelId}`;
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
    // The file id is the attachment's URL: `download` fetches it.
    ...(audio.length
      ? { audio: audio.map((f) => ({ fileId: f.url, mime: f.contentType ?? 'audio/ogg', name: f.name })) }
      : {}),
    ...(media.length
      ? {
          media: media.map((f) => ({
            kind: mediaKind(f.contentType),
            fileId: f.url,
            mime: f.contentType ?? 'application/octet-stream',
            name: f.name,
          })),
        }
      : {}),
  };
}

function mediaKind(type: string | null): 'image' | 'video' | 'file' {
  if (type?.startsWith('image/')) return 'image';
  return type?.startsWith('video/') ? 'video' : 'file';
}

/**
 * One row of buttons (an action row of type 1, buttons of type 2); a button's custom id is the text its press sends.
 */
export function discordChoiceRow(choices: readonly Choice[]): {
  type: 1;
  components: Array<{ type: 2; style: 1 | 4; label: string; custom_id: string }>;
} {
  return {
    type: 1,
    components: choices.map((choice, i) => ({
      type: 2,
      style: i === 0 ? 1 : 4,
      label: choice.label,
      custom_id: choice.reply,
    })),
  };
}

/**
 * A button press as the message its button stands for: the presser wrote it, where the button's message is, to
 * the bot. It goes through `fromDiscordMessage`, so the chat (and the session) is the one the button sits in.
 */
export function fromDiscordButton(
  facts: Omit<DiscordMessageFacts, 'content' | 'authorIsBot' | 'repliesToBot'> & { customId: string },
  botId: string,
): ChannelMessage | undefined {
  const { customId, ...rest } = facts;
  return fromDiscordMessage({ ...rest, content: customId, authorIsBot: false, repliesToBot: true }, botId);
}

import { Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import { sendForBytes } from '../http/client.js';
import { CHAT_COMMANDS } from './command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type Choice,
  type OutboundFile,
} from './channel.js';
import { uploadToDiscord } from './discord-upload.js';
import {
  discordChoiceRow,
  DISCORD_MAX_LENGTH,
  fromDiscordButton,
  fromDiscordMessage,
  type DiscordMessageFacts,
} from './discord-message.js';

function factsOf(message: Message, botId: string): DiscordMessageFacts {
  const channel = message.channel;
  return {
    id: message.id,
    channelId: message.channelId,
    guildId: message.guildId,
    threadParentId: channel.isThread() ? channel.parentId : null,
    content: message.content,
    authorId: message.author.id,
    authorName: message.author.username,
    authorIsBot: message.author.bot,
    repliesToBot: message.mentions.repliedUser?.id === botId,
    attachments: [...message.attachments.values()].map((a) => ({
      url: a.url,
      name: a.name,
      contentType: a.contentType,
    })),
  };
}

export interface DiscordOptions {
  token: string;
  /** `settings.base_url`: the REST API root (`…/api`, an emulator); the gateway's address comes from it. */
  apiBase?: string;
}

/** Discord's attachment limit for bots without boosts. */
const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;

/** Discord through discord.js's gateway connection; one instance per bot token. */
export class DiscordChannel implements Channel {
  readonly kind = 'discord';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: DISCORD_MAX_LENGTH,
  };
  private client: Client | undefined;

  constructor(private readonly options: DiscordOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      partials: [Partials.Channel],
      ...(this.options.apiBase ? { rest: { api: this.options.apiBase.replace(/\/+$/, '') } } : {}),
    });
    this.client = client;
    client.once(Events.ClientReady, () => hooks.onConnected());
    client.on(Events.MessageCreate, (message) => {
      const botId = client.user?.id ?? '';
      const inbound = fromDiscordMessage(factsOf(message, botId), botId);
      if (inbound) hooks.onMessage(inbound);
    });
    client.on(Events.InteractionCreate, (interaction) => {
      if (!interaction.isButton()) return;
      // Acknowledged at once: Discord shows the press as failed after 3 s without an answer.
      void interaction.deferUpdate().catch(() => undefined);
      const channel = interaction.channel;
      const inbound = fromDiscordButton(
        {
          id: interaction.id,
          channelId: interaction.channelId,
          guildId: interaction.guildId,
          threadParentId: channel?.isThread() ? channel.parentId : null,
          authorId: interaction.user.id,
          authorName: interaction.user.username,
          customId: interaction.customId,
        },
        client.user?.id ?? '',
      );
      if (inbound) hooks.onMessage(inbound);
    });
    client.on(Events.Error, (error) => hooks.onFailed(new ChannelError('network', error.message)));
    client.on(Events.Invalidated, () =>
      hooks.onFailed(new ChannelError('unauthorized', 'the Discord session was invalidated')),
    );
    await client.login(this.options.token).catch((error: unknown) => {
      throw new ChannelError('unauthorized', `Discord login failed (${(error as Error).message})`);
    });
  }

  async stop(): Promise<void> {
    await this.client?.destroy();
    this.client = undefined;
  }

  async send(replyTo: string, text: string): Promise<string> {
    const channel = await this.sendable(replyTo);
    return (await channel.send(text)).id;
  }

  async sendChoices(replyTo: string, text: string, choices: readonly Choice[]): Promise<string> {
    const channel = await this.sendable(replyTo);
    return (await channel.send({ content: text, components: [discordChoiceRow(choices)] })).id;
  }

  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    const channel = await this.sendable(replyTo);
    await (await channel.messages.fetch(messageId)).edit(text);
  }

  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    if (!this.client) throw new ChannelError('platform', 'the Discord channel is not started');
    return uploadToDiscord(this.client.rest, replyTo, file);
  }

  /** An attachment, by its URL (the file id of an inbound file). */
  async download(fileId: string): Promise<Buffer> {
    const answer = await sendForBytes({ maxAnswerBytes: MAX_DOWNLOAD_BYTES }, { url: fileId }).catch((error: Error) => {
      throw new ChannelError('network', `downloading a Discord attachment failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a Discord attachment failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  async typing(replyTo: string): Promise<void> {
    await this.sendable(replyTo)
      .then((channel) => channel.sendTyping())
      .catch(() => undefined);
  }

  private async sendable(channelId: string) {
    const channel = await this.client?.channels.fetch(channelId);
    if (!channel?.isSendable() || !('messages' in channel))
      throw new ChannelError('platform', `Discord channel ${channelId} cannot receive messages`);
    return channel;
  }
}

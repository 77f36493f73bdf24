import { Client, Events, GatewayIntentBits, Partials, type Message } from 'discord.js';
import { CHAT_COMMANDS } from './command-names.js';
import { ChannelError, type Channel, type ChannelCapabilities, type ChannelHooks, type Choice, type OutboundFile } from './channel.js';
import { uploadToDiscord } from './discord-upload.js';
import { discordChoiceRow, DISCORD_MAX_LENGTH, fromDiscordButton, fromDiscordMessage, type DiscordMessageFacts } from './discord-message.js';

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
  };
}

/** Discord through discord.js's gateway connection; one instance per bot token. */
export class DiscordChannel implements Channel {
  readonly kind = 'discord';
  readonly capabilities: ChannelCapabilities = { commands: CHAT_COMMANDS, streaming: true, maxMessageLength: DISCORD_MAX_LENGTH };
  private client: Client | undefined;

  constructor(private readonly token: string) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const client = new Client({
      intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
      partials: [Partials.Channel],
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
      const inbound = fromDiscordButton({
        id: interaction.id,
        channelId: interaction.channelId,
        guildId: interaction.guildId,
        threadParentId: channel?.isThread() ? channel.parentId : null,
        authorId: interaction.user.id,
        authorName: interaction.user.username,
        customId: interaction.customId,
      }, client.user?.id ?? '');
      if (inbound) hooks.onMessage(inbound);
    });
    client.on(Events.Error, (error) => hooks.onFailed(new ChannelError('network', error.message)));
    client.on(Events.Invalidated, () => hooks.onFailed(new ChannelError('unauthorized', 'the Discord session was invalidated')));
    await client.login(this.token).catch((error: unknown) => {
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

  async typing(replyTo: string): Promise<void> {
    await this.sendable(replyTo).then((channel) => channel.sendTyping()).catch(() => undefined);
  }

  private async sendable(channelId: string) {
    const channel = await this.client?.channels.fetch(channelId);
    if (!channel?.isSendable() || !('messages' in channel)) throw new ChannelError('platform', `Discord channel ${channelId} cannot receive messages`);
    return channel;
  }
}

import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import {
  ComponentType,
  GatewayDispatchEvents,
  GatewayIntentBits,
  InteractionResponseType,
  InteractionType,
  Routes,
  type APIInteraction,
  type APIMessage,
  type GatewayDispatchPayload,
  type GatewayMessageCreateDispatchData,
} from 'discord-api-types/v10';
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
import { ThreadParents } from './discord-threads.js';

export interface DiscordOptions {
  token: string;
  /** `settings.base_url`: the REST API root (`…/api`, an emulator); the gateway's address comes from it. */
  apiBase?: string;
}

/** Discord's attachment limit for bots without boosts. */
const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;
/** Close codes after which Discord will not take the session again as configured: a bad token, intents not allowed. */
const FATAL_CLOSE_CODES = new Set([4004, 4010, 4011, 4012, 4013, 4014]);

const INTENTS =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.MessageContent |
  GatewayIntentBits.DirectMessages;

/**
 * Discord through the discord.js project's gateway connection (`@discordjs/ws`) and REST client (`@discordjs/rest`,
 * which honours 429s); one instance per bot token. Without the full discord.js client there are no caches of guilds,
 * members and messages: the channel keeps only which thread belongs to which channel.
 */
export class DiscordChannel implements Channel {
  readonly kind = 'discord';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: DISCORD_MAX_LENGTH,
  };
  private readonly rest: REST;
  private gateway: WebSocketManager | undefined;
  private readonly threads = new ThreadParents();
  private botId = '';

  constructor(private readonly options: DiscordOptions) {
    this.rest = new REST(options.apiBase ? { api: options.apiBase.replace(/\/+$/, '') } : {}).setToken(options.token);
  }

  async start(hooks: ChannelHooks): Promise<void> {
    const gateway = new WebSocketManager({ token: this.options.token, intents: INTENTS, rest: this.rest });
    this.gateway = gateway;
    gateway.on(WebSocketShardEvents.Dispatch, ({ data }) => this.dispatch(data, hooks));
    gateway.on(WebSocketShardEvents.Error, ({ error }) => hooks.onFailed(new ChannelError('network', error.message)));
    gateway.on(WebSocketShardEvents.Closed, ({ code }) => {
      if (FATAL_CLOSE_CODES.has(code))
        hooks.onFailed(new ChannelError('unauthorized', `Discord closed the session (close code ${code})`));
    });
    await gateway.connect().catch((error: unknown) => {
      throw new ChannelError('unauthorized', `Discord login failed (${(error as Error).message})`);
    });
  }

  async stop(): Promise<void> {
    await this.gateway?.destroy();
    this.gateway = undefined;
  }

  async send(replyTo: string, text: string): Promise<string> {
    return (await this.post(replyTo, { content: text })).id;
  }

  async sendChoices(replyTo: string, text: string, choices: readonly Choice[]): Promise<string> {
    return (await this.post(replyTo, { content: text, components: [discordChoiceRow(choices)] })).id;
  }

  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    await this.rest.patch(Routes.channelMessage(replyTo, messageId), { body: { content: text } });
  }

  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    return uploadToDiscord(this.rest, replyTo, file);
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
    await this.rest.post(Routes.channelTyping(replyTo)).catch(() => undefined);
  }

  private async post(channelId: string, body: Record<string, unknown>): Promise<APIMessage> {
    return (await this.rest.post(Routes.channelMessages(channelId), { body })) as APIMessage;
  }

  private dispatch(payload: GatewayDispatchPayload, hooks: ChannelHooks): void {
    this.threads.see(payload);
    switch (payload.t) {
      case GatewayDispatchEvents.Ready:
        this.botId = payload.d.user.id;
        return hooks.onConnected();
      case GatewayDispatchEvents.Resumed:
        return hooks.onConnected();
      case GatewayDispatchEvents.MessageCreate: {
        const inbound = fromDiscordMessage(this.factsOf(payload.d), this.botId);
        if (inbound) hooks.onMessage(inbound);
        return;
      }
      case GatewayDispatchEvents.InteractionCreate:
        return this.pressed(payload.d, hooks);
      default:
        return;
    }
  }

  private factsOf(message: GatewayMessageCreateDispatchData): DiscordMessageFacts {
    return {
      id: message.id,
      channelId: message.channel_id,
      guildId: message.guild_id ?? null,
      threadParentId: this.threads.parentOf(message.channel_id),
      content: message.content,
      authorId: message.author.id,
      authorName: message.author.username,
      authorIsBot: message.author.bot ?? false,
      repliesToBot: message.referenced_message?.author.id === this.botId,
      attachments: message.attachments.map((a) => ({
        url: a.url,
        name: a.filename,
        contentType: a.content_type ?? null,
      })),
    };
  }

  /** A button press: acknowledged at once (Discord shows the press as failed after 3 s without an answer). */
  private pressed(interaction: APIInteraction, hooks: ChannelHooks): void {
    if (interaction.type !== InteractionType.MessageComponent) return;
    if (interaction.data.component_type !== ComponentType.Button) return;
    void this.rest
      .post(Routes.interactionCallback(interaction.id, interaction.token), {
        body: { type: InteractionResponseType.DeferredMessageUpdate },
        auth: false,
      })
      .catch(() => undefined);
    const user = interaction.member?.user ?? interaction.user;
    const channelId = interaction.channel?.id ?? interaction.channel_id ?? '';
    if (!user || channelId === '') return;
    const inbound = fromDiscordButton(
      {
        id: interaction.id,
        channelId,
        guildId: interaction.guild_id ?? null,
        threadParentId: this.threads.parentOf(channelId),
        authorId: user.id,
        authorName: user.username,
        customId: interaction.data.custom_id,
      },
      this.botId,
    );
    if (inbound) hooks.onMessage(inbound);
  }
}

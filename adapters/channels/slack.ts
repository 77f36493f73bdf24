import { App, LogLevel } from '@slack/bolt';
import { sendForBytes } from '../http/client.js';
import { CHAT_COMMANDS } from './command-names.js';
import { renderMarkdown } from './markdown.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type Choice,
  type OutboundFile,
} from './channel.js';
import { rethrowRateLimit, SLACK_CLIENT_RETRIES } from './slack-rate-limit.js';
import { uploadToSlack } from './slack-upload.js';
import {
  fromSlackButton,
  fromSlackMessage,
  SLACK_MAX_LENGTH,
  slackButtonSchema,
  slackChatKind,
  slackChoiceBlocks,
  slackMessageSchema,
  slackTarget,
  type SlackChatKind,
} from './slack-message.js';

export interface SlackOptions {
  /** The bot token (`xoxb-…`), `settings.token`. */
  token: string;
  /** The app-level token (`xapp-…`) Socket Mode connects with, `settings.app_token`. */
  appToken: string;
  /** `settings.base_url`: the Web API root (`…/api/`, an emulator); Socket Mode's address comes from it. */
  apiUrl?: string;
}

/** Slack's limit for a file a bot downloads here. */
const MAX_DOWNLOAD_BYTES = 25 * 1024 * 1024;

/** Slack through @slack/bolt in Socket Mode (no public URL needed); one instance per app. */
export class SlackChannel implements Channel {
  readonly kind = 'slack';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: true,
    maxMessageLength: SLACK_MAX_LENGTH,
  };
  private app: App | undefined;
  /** The chat kind of each channel a message came from, so a button press there reaches the same session. */
  private readonly kinds = new Map<string, SlackChatKind>();

  constructor(private readonly options: SlackOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    const api = this.options.apiUrl ? { slackApiUrl: this.options.apiUrl.replace(/\/*$/, '/') } : {};
    const app = new App({
      token: this.options.token,
      appToken: this.options.appToken,
      socketMode: true,
      logLevel: LogLevel.ERROR,
      // The bot's calls (sends, edits, uploads) once each: the outbox tries again. Socket Mode's own client keeps its
      // retries: without them it takes a refused connection as the end and stops reconnecting.
      clientOptions: { ...api, ...SLACK_CLIENT_RETRIES },
      installerOptions: { clientOptions: api },
    });
    this.app = app;
    const auth = await app.client.auth.test().catch((error: unknown) => {
      throw new ChannelError('unauthorized', `Slack auth.test failed (${(error as Error).message})`);
    });
    const botUserId = auth.user_id ?? '';
    app.event('message', async ({ event }) => {
      const parsed = slackMessageSchema.safeParse(event);
      if (parsed.success) this.kinds.set(parsed.data.channel, slackChatKind(parsed.data));
      const inbound = parsed.success ? fromSlackMessage(parsed.data, botUserId) : undefined;
      if (inbound) hooks.onMessage(inbound);
    });
    app.action(/^tern_choice_/, async ({ ack, body }) => {
      await ack();
      const parsed = slackButtonSchema.safeParse(body);
      const inbound = parsed.success ? fromSlackButton(parsed.data, (channel) => this.kinds.get(channel)) : undefined;
      if (inbound) hooks.onMessage(inbound);
    });
    app.error(async (error) => hooks.onFailed(new ChannelError('platform', error.message)));
    await app.start();
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    await this.app?.stop();
    this.app = undefined;
  }

  async send(replyTo: string, text: string): Promise<string> {
    const answer = await this.client()
      .chat.postMessage({ ...slackTarget(replyTo), text: renderMarkdown(text, 'slack') })
      .catch(rethrowRateLimit);
    return answer.ts ?? '';
  }

  async sendChoices(replyTo: string, text: string, choices: readonly Choice[]): Promise<string> {
    const shown = renderMarkdown(text, 'slack');
    const answer = await this.client()
      .chat.postMessage({ ...slackTarget(replyTo), text: shown, blocks: slackChoiceBlocks(shown, choices) as never })
      .catch(rethrowRateLimit);
    return answer.ts ?? '';
  }

  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    await this.client()
      .chat.update({ channel: slackTarget(replyTo).channel, ts: messageId, text: renderMarkdown(text, 'slack') })
      .catch(rethrowRateLimit);
  }

  /** A shared file, by its private download URL (the file id of an inbound file), with the bot token. */
  async download(fileId: string): Promise<Buffer> {
    const answer = await sendForBytes(
      { maxAnswerBytes: MAX_DOWNLOAD_BYTES },
      { url: fileId, headers: { authorization: `Bearer ${this.options.token}` } },
    ).catch((error: Error) => {
      throw new ChannelError('network', `downloading a Slack file failed (${error.message})`);
    });
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a Slack file failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    return uploadToSlack(this.client(), replyTo, file);
  }

  /** Slack offers bots no typing indicator outside its assistant threads. */
  async typing(): Promise<void> {}

  private client(): App['client'] {
    if (!this.app) throw new ChannelError('platform', 'the Slack channel is not started');
    return this.app.client;
  }
}

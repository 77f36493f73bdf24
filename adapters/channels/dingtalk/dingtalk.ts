import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { DWClient, type DWClientDownStream } from 'dingtalk-stream';
import { sendForBytes } from '../../http/client.js';
import { namedChatOf } from '../chat-kind.js';
import { CHAT_COMMANDS } from '../command-names.js';
import {
  ChannelError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type OutboundFile,
} from '../channel.js';
import { DingTalkApi } from './dingtalk-api.js';
import { dingtalkMessageSchema, fromDingTalkMessage, ROBOT_TOPIC } from './events.js';

export interface DingTalkOptions {
  clientId: string;
  clientSecret: string;
  robotCode: string;
  apiBase: string;
  oapiBase: string;
}

/** The peer runtime's limit for one DingTalk message. */
export const DINGTALK_MAX_LENGTH = 20_000;
const MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024;
/** A session webhook this close to its expiry is not used: the reply goes through the OpenAPI instead. */
const WEBHOOK_MARGIN_MS = 10_000;

/**
 * dingtalk-stream's client with two changes: the connection is opened at `apiBase` through Tern's HTTP client (the
 * library's address is fixed), and a dropped connection is reported (`onDrop`) for the gateway to restart the channel
 * with its backoff, instead of being reopened every second. The library calls `connect` again after every drop.
 */
class StreamClient extends DWClient {
  onDrop: (() => void) | undefined;

  constructor(
    private readonly options: DingTalkOptions,
    private readonly api: DingTalkApi,
  ) {
    super({ clientId: options.clientId, clientSecret: options.clientSecret, keepAlive: true });
  }

  /** Asks for a connection (`connections/open`) and keeps its address for `_connect`. */
  override async getEndpoint(): Promise<this> {
    const body = {
      clientId: this.options.clientId,
      clientSecret: this.options.clientSecret,
      ua: 'tern',
      subscriptions: this.config.subscriptions,
    };
    const answer = await this.api.post(
      `${this.options.apiBase}/v1.0/gateway/connections/open`,
      body,
      'open a stream connection',
    );
    const { endpoint, ticket } = answer;
    if (typeof endpoint !== 'string' || typeof ticket !== 'string')
      throw new ChannelError('platform', 'DingTalk gave no stream endpoint');
    // The library reads the address from its own (untyped as private) field.
    (this as unknown as { dw_url: string }).dw_url = `${endpoint}?ticket=${encodeURIComponent(ticket)}`;
    return this;
  }

  override async connect(): Promise<void> {
    this.onDrop?.();
  }
}

/**
 * dingtalk-stream writes "connect success" and "Disconnecting." with `console.info` whatever its `debug` says; the
 * gateway's output is its own log. `console.info` is a no-op while the library opens or closes its connection.
 */
async function withoutConsoleInfo<T>(run: () => Promise<T> | T): Promise<T> {
  const info = console.info;
  console.info = () => {};
  try {
    return await run();
  } finally {
    console.info = info;
  }
}

/** DingTalk through its Stream mode (dingtalk-stream: a WebSocket the bot opens, no public URL needed). */
export class DingTalkChannel implements Channel {
  readonly kind = 'dingtalk';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    // A bot's Markdown message cannot be changed: a placeholder stays and the reply follows it.
    edits: false,
    maxMessageLength: DINGTALK_MAX_LENGTH,
  };
  private readonly api: DingTalkApi;
  private client: StreamClient | undefined;
  /** Each chat's latest session webhook, while it lasts. */
  private readonly webhooks = new Map<string, { url: string; until: number }>();

  constructor(private readonly options: DingTalkOptions) {
    this.api = new DingTalkApi({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      apiBase: options.apiBase,
      oapiBase: options.oapiBase,
    });
  }

  async start(hooks: ChannelHooks): Promise<void> {
    // The credentials are checked first, so a wrong secret says so rather than "no endpoint".
    await this.api.accessToken();
    const client = new StreamClient(this.options, this.api);
    this.client = client;
    client.registerCallbackListener(ROBOT_TOPIC, (frame: DWClientDownStream) => void this.take(frame, hooks));
    await client.getEndpoint();
    await withoutConsoleInfo(() => client._connect()).catch(async (error: Error & { code?: string }) => {
      await withoutConsoleInfo(() => client.disconnect());
      throw new ChannelError('network', `cannot open the DingTalk stream (${error.code ?? error.message})`);
    });
    client.onDrop = () => hooks.onFailed(new ChannelError('network', 'the DingTalk stream connection closed'));
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    client.onDrop = undefined;
    await withoutConsoleInfo(() => client.disconnect());
  }

  /** A user is sent to as `user:<staff id>` (batchSend), a group as `group:<conversation id>`. */
  replyToOf(chat: string): string {
    const named = namedChatOf(chat);
    if (!named) return chat;
    return `${named.kind === 'direct' ? 'user' : 'group'}:${named.id}`;
  }

  /**
   * Markdown through the chat's session webhook while it lasts, else through the OpenAPI (one-to-one: batchSend to the
   * user; group: groupMessages/send). DingTalk returns no id for a webhook reply: Tern names it.
   */
  async send(replyTo: string, text: string): Promise<string> {
    const title =
      text
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.replace(/[#*`>_~[\]]/g, '')
        .trim()
        .slice(0, 20) || 'Tern';
    const webhook = this.webhooks.get(replyTo);
    if (webhook && Date.now() < webhook.until - WEBHOOK_MARGIN_MS) {
      await this.api.post(webhook.url, { msgtype: 'markdown', markdown: { title, text } }, 'reply');
      return randomUUID();
    }
    return this.robotMessage(replyTo, 'sampleMarkdown', { title, text });
  }

  /**
   * The file goes to the media API first, then as a robot message naming its media id through the OpenAPI (a session
   * webhook takes no files): a picture as `sampleImageMsg`, anything else as `sampleFile`. Neither carries text: the
   * caption follows as a message of its own.
   */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const name = basename(file.path);
    const bytes = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${name} to send it (${error.message})`);
    });
    const image = file.kind === 'image';
    const mediaId = await this.api.upload(image ? 'image' : 'file', name, bytes);
    const id = image
      ? await this.robotMessage(replyTo, 'sampleImageMsg', { photoURL: mediaId })
      : await this.robotMessage(replyTo, 'sampleFile', {
          mediaId,
          fileName: name,
          fileType: extname(name).slice(1).toLowerCase() || 'file',
        });
    if (file.caption) await this.send(replyTo, file.caption);
    return id;
  }

  /** A robot message through the OpenAPI: one-to-one by batchSend to the user, to a group by groupMessages/send. */
  private async robotMessage(replyTo: string, msgKey: string, msgParam: Record<string, unknown>): Promise<string> {
    const param = { msgKey, msgParam: JSON.stringify(msgParam), robotCode: this.options.robotCode };
    const at = replyTo.indexOf(':');
    const [kind, id] = [replyTo.slice(0, at), replyTo.slice(at + 1)];
    const sent =
      kind === 'group'
        ? await this.api.call('/v1.0/robot/groupMessages/send', { ...param, openConversationId: id })
        : await this.api.call('/v1.0/robot/oToMessages/batchSend', { ...param, userIds: [id] });
    return String(sent.processQueryKey ?? randomUUID());
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'DingTalk cannot edit a sent bot message');
  }

  /** DingTalk shows bots no typing indicator. */
  async typing(): Promise<void> {}

  /** A file a user sent, by its download code (the OpenAPI names a temporary URL). */
  async download(fileId: string): Promise<Buffer> {
    const named = await this.api.call('/v1.0/robot/messageFiles/download', {
      downloadCode: fileId,
      robotCode: this.options.robotCode,
    });
    if (typeof named.downloadUrl !== 'string') throw new ChannelError('platform', 'DingTalk gave no download URL');
    const answer = await sendForBytes({ maxAnswerBytes: MAX_DOWNLOAD_BYTES }, { url: named.downloadUrl }).catch(
      (error: Error) => {
        throw new ChannelError('network', `downloading a DingTalk file failed (${error.message})`);
      },
    );
    if (answer.status >= 300)
      throw new ChannelError('platform', `downloading a DingTalk file failed (HTTP ${answer.status})`);
    return answer.bytes;
  }

  /** A robot message: kept, then acknowledged, so Stream mode delivers again what a crash cut off. */
  private async take(frame: DWClientDownStream, hooks: ChannelHooks): Promise<void> {
    let data: unknown;
    try {
      data = JSON.parse(frame.data);
    } catch {
      return;
    }
    const parsed = dingtalkMessageSchema.safeParse(data);
    const message = parsed.success ? fromDingTalkMessage(parsed.data) : undefined;
    if (parsed.success && message && parsed.data.sessionWebhook) {
      this.webhooks.set(message.replyTo, {
        url: parsed.data.sessionWebhook,
        until: parsed.data.sessionWebhookExpiredTime ?? Date.now() + 60 * 60_000,
      });
    }
    if (message) await hooks.onMessage(message);
    this.client?.socketCallBackResponse(frame.headers.messageId, { status: 'SUCCESS' });
  }
}

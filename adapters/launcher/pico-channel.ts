import { randomUUID } from 'node:crypto';
import type { Bus } from '../../bus/index.js';
import type { Channel, ChannelCapabilities, ChannelHooks } from '../channels/channel.js';
import { CHAT_COMMANDS } from '../channels/command-names.js';
import { chatOf, sessionOf, type PicoEndpoint } from './pico-endpoint.js';
import { ReplyWatch } from './reply-watch.js';

/** A browser shows any length; the cap only keeps one frame well under a megabyte. */
const MAX_MESSAGE_CHARS = 200_000;

/**
 * The web-UI channel as the gateway runs it (`channel_list.<name>` with `type: pico`): messages typed on
 * the Chat page arrive through the launcher's endpoint, replies leave as `message.create` /
 * `message.update` frames, and `typing.start` … `typing.stop` frame each reply.
 */
export class PicoChannel implements Channel {
  readonly kind = 'pico';
  readonly capabilities: ChannelCapabilities = { commands: CHAT_COMMANDS, streaming: true, maxMessageLength: MAX_MESSAGE_CHARS };
  private detach: (() => void) | undefined;
  private watch: ReplyWatch | undefined;

  constructor(private readonly endpoint: PicoEndpoint, private readonly name: string, private readonly bus: Bus) {}

  async start(hooks: ChannelHooks): Promise<void> {
    this.detach = this.endpoint.attach(this.name, hooks);
    this.watch = new ReplyWatch(this.bus, this.name, (chat) => this.typingFrame(sessionOf(chat), 'typing.stop'));
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.detach?.();
    this.watch?.close();
  }

  async send(replyTo: string, text: string): Promise<string> {
    const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
    this.message(replyTo, 'message.create', messageId, text);
    this.watch?.shown(chatOf(replyTo), text);
    return messageId;
  }

  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    this.message(replyTo, 'message.update', messageId, text);
    this.watch?.shown(chatOf(replyTo), text);
  }

  async typing(replyTo: string): Promise<void> {
    this.watch?.began(chatOf(replyTo));
    this.typingFrame(replyTo, 'typing.start');
  }

  private message(session: string, type: 'message.create' | 'message.update', messageId: string, content: string): void {
    this.endpoint.deliver(session, { type, session_id: session, timestamp: Date.now(), payload: { message_id: messageId, content } });
  }

  private typingFrame(session: string, type: 'typing.start' | 'typing.stop'): void {
    this.endpoint.deliver(session, { type, session_id: session, timestamp: Date.now(), payload: {} });
  }
}

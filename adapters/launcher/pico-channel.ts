import { randomUUID } from 'node:crypto';
import type { Channel, ChannelCapabilities, ChannelHooks, Choice } from '../channels/channel.js';
import { CHAT_COMMANDS } from '../channels/command-names.js';
import type { PicoEndpoint } from './pico-endpoint.js';

/** A browser shows any length; the cap only keeps one frame well under a megabyte. */
const MAX_MESSAGE_CHARS = 200_000;

/**
 * The web-UI channel as the gateway runs it (`channel_list.<name>` with `type: pico`): messages typed on
 * the Chat page arrive through the launcher's endpoint, replies leave as `message.create` /
 * `message.update` frames, and `typing.start` … `typing.stop` frame each reply.
 */
export class PicoChannel implements Channel {
  readonly kind = 'pico';
  readonly capabilities: ChannelCapabilities;
  private detach: (() => void) | undefined;

  /** `trusted`: the signed-in owner's local channel, like the CLI (`settings.trusted`, true unless set false). */
  constructor(private readonly endpoint: PicoEndpoint, private readonly name: string, trusted: boolean) {
    this.capabilities = { commands: CHAT_COMMANDS, streaming: true, maxMessageLength: MAX_MESSAGE_CHARS, local: trusted };
  }

  async start(hooks: ChannelHooks): Promise<void> {
    this.detach = this.endpoint.attach(this.name, hooks);
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.detach?.();
  }

  async send(replyTo: string, text: string): Promise<string> {
    const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
    this.message(replyTo, 'message.create', messageId, text);
    return messageId;
  }

  async edit(replyTo: string, messageId: string, text: string): Promise<void> {
    this.message(replyTo, 'message.update', messageId, text);
  }

  /** `message.create` with `payload.choices`: buttons whose `reply` the page sends back as `message.send`. */
  async sendChoices(replyTo: string, text: string, choices: readonly Choice[]): Promise<string> {
    const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
    this.endpoint.deliver(replyTo, { type: 'message.create', session_id: replyTo, timestamp: Date.now(), payload: { message_id: messageId, content: text, choices: choices.map(({ label, reply }) => ({ label, reply })) } });
    return messageId;
  }

  async typing(replyTo: string): Promise<void> {
    this.typingFrame(replyTo, 'typing.start');
  }

  async typingDone(replyTo: string): Promise<void> {
    this.typingFrame(replyTo, 'typing.stop');
  }

  private message(session: string, type: 'message.create' | 'message.update', messageId: string, content: string): void {
    this.endpoint.deliver(session, { type, session_id: session, timestamp: Date.now(), payload: { message_id: messageId, content } });
  }

  private typingFrame(session: string, type: 'typing.start' | 'typing.stop'): void {
    this.endpoint.deliver(session, { type, session_id: session, timestamp: Date.now(), payload: {} });
  }
}

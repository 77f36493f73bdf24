import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Channel, ChannelCapabilities, ChannelHooks, Choice, OutboundFile } from '../channel.js';
import { CHAT_COMMANDS } from '../command-names.js';
import type { PicoEndpoint } from './endpoint.js';
import type { FrameMedia } from './frames.js';

/** A browser shows any length; the cap only keeps one frame well under a megabyte. */
const MAX_MESSAGE_CHARS = 200_000;
/** Images up to this size travel inside the frame as a `data:` URL; a larger one is named only. */
const MAX_INLINE_IMAGE_BYTES = 8 * 1024 * 1024;

/**
 * A `pico` channel (`channel_list.<name>` with `type: pico`) over a Pico Protocol server endpoint: the launcher's, for
 * the Chat page, or its own on `tern gateway`'s HTTP server. Messages arrive through the endpoint, replies leave as
 * `message.create` / `message.update` frames, and `typing.start` … `typing.stop` frame each reply.
 */
export class PicoChannel implements Channel {
  readonly kind = 'pico';
  readonly capabilities: ChannelCapabilities;
  private detach: (() => void) | undefined;

  /** `trusted`: the signed-in owner's local channel, like the CLI (`settings.trusted`, true unless set false). */
  constructor(
    private readonly endpoint: PicoEndpoint,
    private readonly name: string,
    trusted: boolean,
    maxMessageChars = MAX_MESSAGE_CHARS,
  ) {
    this.capabilities = {
      commands: CHAT_COMMANDS,
      streaming: true,
      maxMessageLength: maxMessageChars,
      local: trusted,
    };
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

  /** `message.create` with `payload.media`: the caption as its content, an image inline as a `data:` URL. */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
    const { size } = await stat(file.path);
    const media: FrameMedia = {
      kind: file.kind,
      name: basename(file.path),
      bytes: size,
      ...(file.mime ? { mime: file.mime } : {}),
    };
    if (file.kind === 'image' && file.mime && size <= MAX_INLINE_IMAGE_BYTES)
      media.url = `data:${file.mime};base64,${(await readFile(file.path)).toString('base64')}`;
    this.endpoint.deliver(replyTo, {
      type: 'message.create',
      session_id: replyTo,
      timestamp: Date.now(),
      payload: { message_id: messageId, content: file.caption ?? '', media: [media] },
    });
    return messageId;
  }

  /** `message.create` with `payload.choices`: buttons whose `reply` the page sends back as `message.send`. */
  async sendChoices(replyTo: string, text: string, choices: readonly Choice[]): Promise<string> {
    const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
    this.endpoint.deliver(replyTo, {
      type: 'message.create',
      session_id: replyTo,
      timestamp: Date.now(),
      payload: { message_id: messageId, content: text, choices: choices.map(({ label, reply }) => ({ label, reply })) },
    });
    return messageId;
  }

  async typing(replyTo: string): Promise<void> {
    this.typingFrame(replyTo, 'typing.start');
  }

  async typingDone(replyTo: string): Promise<void> {
    this.typingFrame(replyTo, 'typing.stop');
  }

  private message(
    session: string,
    type: 'message.create' | 'message.update',
    messageId: string,
    content: string,
  ): void {
    this.endpoint.deliver(session, {
      type,
      session_id: session,
      timestamp: Date.now(),
      payload: { message_id: messageId, content },
    });
  }

  private typingFrame(session: string, type: 'typing.start' | 'typing.stop'): void {
    this.endpoint.deliver(session, { type, session_id: session, timestamp: Date.now(), payload: {} });
  }
}

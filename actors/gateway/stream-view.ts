import { createActor, type Actor } from 'xstate';
import type { Channel } from '../../adapters/channels/channel.js';
import type { Bus, Correlation, ReplyTarget } from '../../bus/index.js';
import { streamingMachine, type StreamEnding, type StreamingInput } from '../../machines/streaming.js';

export interface StreamResult {
  ending: StreamEnding;
  /** The message the stream created, which the final reply may still need to complete. */
  messageId: string | undefined;
}

export interface StreamTarget {
  reply: ReplyTarget;
  /** The send key of the streamed message (`<channel>:<inbound>:<turn>:stream`). */
  key: string;
  correlation: Correlation;
  channel: () => Channel | undefined;
}

/**
 * Shows one turn's text chunks in one channel message: created by the first visible chunk, edited as it grows
 * (throttle and minimum growth from `settings.streaming`), the final text always flushed. The outbox feeds it.
 */
export class StreamView {
  private readonly actor: Actor<typeof streamingMachine>;
  private effects: Promise<void> = Promise.resolve();
  private messageId: string | undefined;
  private text = '';

  constructor(
    private readonly bus: Bus,
    private readonly target: StreamTarget,
    settings: StreamingInput,
    limit: number,
    private readonly now: () => number,
  ) {
    const machine = streamingMachine.provide({
      actions: {
        createMessage: (_, { text }) => this.queue(() => this.create(text.slice(0, limit))),
        updateMessage: (_, { text }) => this.queue(() => this.update(text.slice(0, limit))),
      },
    });
    this.actor = createActor(machine, { input: settings });
    this.actor.subscribe({ error: () => undefined });
    this.actor.start();
  }

  chunk(delta: string): void {
    this.text += delta;
    this.actor.send({ type: 'CHUNK', text: this.text, at: this.now() });
  }

  /** Ends the stream with the final reply; a reply too long for one message is left to the outbox. */
  async finish(reply: string, fitsOneMessage: boolean): Promise<StreamResult> {
    if (fitsOneMessage || this.messageId === undefined)
      this.actor.send({ type: 'STREAM_DONE', text: fitsOneMessage ? reply : this.text, at: this.now() });
    await this.effects;
    const snapshot = this.actor.getSnapshot();
    this.actor.stop();
    return { ending: snapshot.context.ending ?? 'nothing_shown', messageId: this.messageId };
  }

  private queue(effect: () => Promise<void>): void {
    this.effects = this.effects.then(effect).catch(() => undefined);
  }

  private async create(text: string): Promise<void> {
    const channel = this.target.channel();
    if (!channel) return;
    const { reply, key, correlation } = this.target;
    this.messageId = await channel.send(reply.reply_to, text);
    this.bus.publish({
      ...correlation,
      type: 'message.sent',
      data: {
        channel: reply.channel,
        chat: reply.chat,
        text,
        send_key: key,
        part: 0,
        message_id: this.messageId,
        media: [],
      },
    });
  }

  private async update(text: string): Promise<void> {
    const channel = this.target.channel();
    if (!channel || this.messageId === undefined) return;
    const { reply, correlation } = this.target;
    await channel.edit(reply.reply_to, this.messageId, text);
    this.bus.publish({
      ...correlation,
      type: 'message.edited',
      data: { channel: reply.channel, chat: reply.chat, message_id: this.messageId, text },
    });
  }
}

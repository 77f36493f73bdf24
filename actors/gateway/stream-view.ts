import { createActor, type Actor } from 'xstate';
import type { Subscription } from 'rxjs';
import type { Bus } from '../../bus/index.js';
import { streamingMachine, type StreamEnding, type StreamingInput } from '../../machines/streaming.js';
import type { Delivery } from './outbox.js';

export interface StreamResult {
  ending: StreamEnding;
  /** The message the stream created, which the final reply may still need to complete. */
  messageId: string | undefined;
}

/**
 * Shows a turn's provider chunks in one channel message: created by the first visible chunk, edited as it
 * grows (throttle and minimum growth from `settings.streaming`), the final text always flushed.
 */
export class StreamView {
  private readonly actor: Actor<typeof streamingMachine>;
  private readonly subscription: Subscription;
  private effects: Promise<void> = Promise.resolve();
  private messageId: string | undefined;
  private text = '';
  /** The turn answering this inbound message; chunks of other turns of the session are not ours. */
  private turn: string | undefined;

  constructor(private readonly bus: Bus, inboundId: string, private readonly delivery: Delivery, settings: StreamingInput, private readonly now: () => number) {
    const limit = delivery.actor.channel?.capabilities.maxMessageLength ?? 4096;
    const machine = streamingMachine.provide({
      actions: {
        createMessage: (_, { text }) => this.queue(() => this.create(text.slice(0, limit))),
        updateMessage: (_, { text }) => this.queue(() => this.update(text.slice(0, limit))),
      },
    });
    this.actor = createActor(machine, { input: settings });
    this.actor.subscribe({ error: () => undefined });
    this.actor.start();
    this.subscription = bus.on('turn.started', 'provider.chunk').subscribe((event) => {
      if (event.type === 'turn.started') {
        if (event.data.message_id === inboundId) this.turn = event.turn;
      } else if (event.turn !== undefined && event.turn === this.turn && event.data.kind === 'text') {
        this.text += event.data.delta;
        this.actor.send({ type: 'CHUNK', text: this.text, at: this.now() });
      }
    });
  }

  /** Ends the stream with the final reply; a reply too long for one message is left to the outbox. */
  async finish(reply: string, fitsOneMessage: boolean): Promise<StreamResult> {
    this.subscription.unsubscribe();
    if (fitsOneMessage || this.messageId === undefined) this.actor.send({ type: 'STREAM_DONE', text: fitsOneMessage ? reply : this.text, at: this.now() });
    await this.effects;
    const snapshot = this.actor.getSnapshot();
    this.actor.stop();
    return { ending: snapshot.context.ending ?? 'nothing_shown', messageId: this.messageId };
  }

  private queue(effect: () => Promise<void>): void {
    this.effects = this.effects.then(effect).catch(() => undefined);
  }

  private async create(text: string): Promise<void> {
    const channel = this.delivery.actor.channel;
    if (!channel) return;
    this.messageId = await channel.send(this.delivery.replyTo, text);
    this.bus.publish({ ...this.delivery.correlation, type: 'message.sent', data: { channel: this.delivery.actor.id.name, chat: this.delivery.chat, text, send_key: `${this.delivery.keyBase}:${this.turn ?? 'command'}:0`, part: 0, message_id: this.messageId, media: [] } });
  }

  private async update(text: string): Promise<void> {
    const channel = this.delivery.actor.channel;
    if (!channel || this.messageId === undefined) return;
    await channel.edit(this.delivery.replyTo, this.messageId, text);
    this.bus.publish({ ...this.delivery.correlation, type: 'message.edited', data: { channel: this.delivery.actor.id.name, chat: this.delivery.chat, message_id: this.messageId, text } });
  }
}

import type { ChannelMessage } from '../../adapters/channels/channel.js';
import { applyTrigger } from '../../adapters/channels/trigger.js';
import { sessionIdOf, type Bus } from '../../bus/index.js';
import type { ChannelEntry, Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import { saveInboundMedia } from '../../store/inbound-media.js';
import { writeLastChannel } from '../../store/state.js';
import type { Runtime } from '../runtime.js';
import type { SessionReply } from '../session.js';
import type { ChannelActor } from './channel-actor.js';
import { dispatch, type Route } from './dispatch.js';
import type { Delivery, Outbox } from './outbox.js';
import { RecentIds } from './recent-ids.js';
import { StreamView } from './stream-view.js';
import { settledWithin } from './settled-within.js';
import { InFlight } from '../in-flight.js';

type ChannelSettings = ChannelEntry['settings'];

export interface DispatcherDeps {
  bus: Bus;
  /** The turn engine, which the gateway loads once it is ready (a message before that waits for it). */
  engine: () => Promise<Runtime>;
  outbox: Outbox;
  logger: Logger;
  config: () => Config;
  entry: (channelName: string) => ChannelEntry | undefined;
  workspace: string;
  now: () => number;
}


/**
 * Inbound messages from every channel: duplicates dropped by message id, `allow_from` and group triggers
 * applied, routed by the dispatch rules to an agent and session, answered through the outbox.
 */
export class Dispatcher {
  private readonly seen = new RecentIds(10_000);
  /** Where each session's latest message came from: an approval its turn asks for is shown there. */
  private readonly deliveries = new Map<string, Delivery>();
  private readonly inflight = new InFlight();
  private draining = false;

  constructor(private readonly deps: DispatcherDeps) {}

  accept(actor: ChannelActor, message: ChannelMessage): void {
    if (this.draining) return;
    if (!this.seen.add(`${actor.id.name}:${message.messageId}`)) {
      this.deps.logger.debug('duplicate inbound dropped', { channel: actor.id.name, message_id: message.messageId });
      return;
    }
    const work = this.process(actor, message).catch((error: unknown) => {
      this.deps.logger.error('inbound message failed', { channel: actor.id.name, message_id: message.messageId, reason: (error as Error)?.message ?? String(error) });
    });
    void this.inflight.track(work);
  }

  /** The chat a session's latest message came from, to ask the user there. */
  deliveryFor(session: string): Delivery | undefined {
    return this.deliveries.get(session);
  }

  get busy(): number {
    return this.inflight.size;
  }

  /** Resolves when no inbound message is being handled (those `drain` gave up on end with the engine). */
  settled(): Promise<void> {
    return this.inflight.settled();
  }

  /** No new turns from here on; resolves true when running ones finished within `ms`. */
  async drain(ms: number): Promise<boolean> {
    this.draining = true;
    return settledWithin(this.inflight.current(), ms);
  }

  private async process(actor: ChannelActor, message: ChannelMessage): Promise<void> {
    const settings = this.deps.entry(actor.id.name)?.settings;
    if (!settings) return;
    const decision = applyTrigger(settings, message);
    if (decision.kind === 'ignore' || (decision.text === '' && !message.audio)) {
      this.deps.logger.debug('inbound ignored', { channel: actor.id.name, reason: decision.kind === 'ignore' ? decision.reason : 'empty' });
      return;
    }
    const route = this.record(actor, message, decision.text);
    const channel = actor.channel;
    const typing = settings.typing !== false && channel !== undefined;
    if (typing) void channel.typing(message.replyTo);
    try {
      await this.reply(actor, message, decision.text, route, settings);
    } finally {
      if (typing) void channel.typingDone?.(message.replyTo);
    }
  }

  private async reply(actor: ChannelActor, message: ChannelMessage, text: string, route: Route, settings: ChannelSettings): Promise<void> {
    const channel = actor.channel;
    const delivery: Delivery = { actor, chat: message.chat, replyTo: message.replyTo, keyBase: `${actor.id.name}:${message.messageId}`, correlation: { agent: route.agent, session: sessionIdOf(route.sessionKey) } };
    this.remember(delivery);
    if (settings.placeholder && channel) delivery.editFirst = await channel.send(message.replyTo, settings.placeholder);
    const streaming = settings.streaming.enabled && channel?.capabilities.streaming && !delivery.editFirst;
    const view = streaming ? new StreamView(this.deps.bus, message.messageId, delivery, settings.streaming, this.deps.now) : undefined;
    const media = await this.fetchAudio(actor, message);
    const noTranscript = text === '' && media.length === 0;
    const engine = await this.deps.engine();
    const reply = await engine.agent(route.agent).handle(route.sessionKey, {
      channel: actor.id.kind,
      account: actor.id.account,
      chat: message.chat,
      sender: message.sender,
      messageId: message.messageId,
      text: noTranscript ? '[voice message: no transcription model is configured]' : text,
      remote: channel?.capabilities.local !== true,
      ...(channel ? { commands: channel.capabilities.commands } : {}),
      ...(media.length > 0 ? { media } : {}),
    });
    await this.answer(delivery, reply, view);
  }

  private remember(delivery: Delivery): void {
    const session = delivery.correlation.session!;
    this.deliveries.delete(session);
    this.deliveries.set(session, delivery);
    // The oldest session goes first: a gateway serving many chats keeps the latest 10,000.
    if (this.deliveries.size > 10_000) this.deliveries.delete(this.deliveries.keys().next().value!);
  }

  /** Routes the message, publishes `message.received` and remembers the chat as the last active channel. */
  private record(actor: ChannelActor, message: ChannelMessage, text: string): Route {
    const { kind, account, name } = actor.id;
    const route = dispatch(this.deps.config(), { channel: kind, account, ...message });
    this.deps.bus.publish({
      agent: route.agent,
      session: sessionIdOf(route.sessionKey),
      type: 'message.received',
      data: { channel: name, account, message_id: message.messageId, chat: message.chat, sender: message.sender, text, session_key: route.sessionKey, space: message.space, topic: message.topic, mentioned: message.mentioned, media: [] },
    });
    writeLastChannel(this.deps.workspace, { channel: name, account, chat: message.chat, reply_to: message.replyTo, at: new Date(this.deps.now()).toISOString() });
    return route;
  }

  /** Voice messages are fetched and saved only when a transcription model will read them. */
  private async fetchAudio(actor: ChannelActor, message: ChannelMessage): Promise<Array<{ kind: 'audio'; path: string; mime: string }>> {
    const channel = actor.channel;
    if (!message.audio || !channel?.download || !this.deps.config().agents.defaults.transcription_model) return [];
    const saved: Array<{ kind: 'audio'; path: string; mime: string }> = [];
    for (const clip of message.audio) {
      try {
        const data = await channel.download(clip.fileId);
        saved.push({ kind: 'audio', path: saveInboundMedia(this.deps.workspace, message.messageId, clip.name, data), mime: clip.mime });
      } catch (error) {
        this.deps.logger.warn('voice message not downloaded', { channel: actor.id.name, reason: (error as Error).message });
      }
    }
    return saved;
  }

  private async answer(delivery: Delivery, reply: SessionReply, view: StreamView | undefined): Promise<void> {
    if (reply.kind === 'none') {
      await view?.finish('', true);
      return;
    }
    const turn = reply.kind === 'turn' ? reply.turn : 'command';
    if (view) {
      const limit = delivery.actor.channel?.capabilities.maxMessageLength ?? 4096;
      const result = await view.finish(reply.text, reply.text.length <= limit);
      if (result.ending === 'streamed' && reply.text.length <= limit) return;
      if (result.ending === 'cut_after_chunk') return;
      if (result.messageId !== undefined) delivery.editFirst = result.messageId;
    }
    await this.deps.outbox.deliver(delivery, turn, reply.text);
  }
}

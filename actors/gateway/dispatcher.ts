import type { Subscription } from 'rxjs';
import type { Bus, Envelope, EventData } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import { route } from '../routing.js';
import { dispatch } from '../dispatch.js';

export interface DispatcherDeps {
  bus: Bus;
  logger: Logger;
  config: () => Config;
  /** Whether a `channel_list` entry's users are at this machine (its channel's `local` capability). */
  isLocal?: (channel: string) => boolean;
  /**
   * Hands the message to whoever serves its session instead of routing it here (a cluster account whose sessions
   * other members serve, #40); resolves once it is handed over. Called in the order messages were accepted.
   */
  forward?: (sessionKey: string, message: EventData<'message.received'>) => Promise<void>;
}

/**
 * The dispatcher actor: it consumes the `dispatcher` work (`message.received`) and routes each message by the
 * dispatch rules to an agent and a session, publishing it for that session (`message.routed`, or `turn.stop.requested`
 * for `/stop`) with the chat its answer goes to.
 */
export class Dispatcher {
  private subscription: Subscription | undefined;
  /** Each session's forwards, one after the other: a chat's messages reach its session in order. */
  private readonly forwarding = new Map<string, Promise<void>>();

  constructor(private readonly deps: DispatcherDeps) {}

  start(): void {
    this.subscription = this.deps.bus.work('dispatcher').subscribe((event) => this.route(event));
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }

  private forward(
    forward: NonNullable<DispatcherDeps['forward']>,
    session: string,
    data: Envelope<'message.received'>['data'],
  ): void {
    const before = this.forwarding.get(session) ?? Promise.resolve();
    const handed = before
      .then(() => forward(session, data))
      .catch((error: unknown) => {
        // Left open in the log: the account's next holder forwards it again (`actors/recovery.ts`).
        this.deps.logger.error('inbound not handed to its session', {
          channel: data.channel,
          message_id: data.message_id,
          reason: (error as Error).message,
        });
      });
    this.forwarding.set(session, handed);
    void handed.finally(() => {
      if (this.forwarding.get(session) === handed) this.forwarding.delete(session);
    });
  }

  private route(event: Envelope<'message.received'>): void {
    const config = this.deps.config();
    const { data } = event;
    const kind = data.kind ?? config.channel_list[data.channel]?.type ?? data.channel;
    const facts = {
      channel: kind,
      account: data.account,
      chat: data.chat,
      sender: data.sender,
      senderAliases: data.sender_aliases ?? [],
      space: data.space,
      topic: data.topic,
      mentioned: data.mentioned ?? false,
    };
    const target = dispatch(config, facts);
    const { forward } = this.deps;
    if (forward) {
      this.forward(forward, target.sessionKey, data);
      return;
    }
    this.deps.logger.debug('inbound routed', {
      channel: data.channel,
      agent: target.agent,
      rule: target.rule ?? 'default',
    });
    route(this.deps.bus, {
      agent: target.agent,
      session_key: target.sessionKey,
      message_id: data.message_id,
      channel: kind,
      account: data.account,
      chat: data.chat,
      sender: data.sender,
      ...(data.sender_aliases ? { sender_aliases: data.sender_aliases } : {}),
      text: data.text,
      // A channel on this machine (the dashboard's chat) is not remote.
      remote: this.deps.isLocal?.(data.channel) !== true,
      reply: {
        channel: data.channel,
        chat: data.chat,
        reply_to: data.reply_to ?? data.chat.replace(/^(direct|group|channel):/, ''),
      },
      ...(data.commands ? { commands: data.commands } : {}),
      media: data.media,
    });
  }
}

import { NotKeptError, type ChannelMessage } from '../../adapters/channels/channel.js';
import { applyTrigger } from '../../adapters/channels/trigger.js';
import { LogFailingError, type Bus, type FailingLog, type LogFailureCode } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import { writeLastChannel } from '../../store/state.js';
import type { ChannelActor } from './channel-actor.js';
import type { RecentIds } from './recent-ids.js';

export interface InboundDeps {
  bus: Bus;
  logger: Logger;
  config: () => Config;
  workspace: string;
  now: () => number;
  /** Inbound ids seen (`<channel>:<message id>`), seeded from the log's tail: a redelivery is dropped. */
  seen: RecentIds;
}

const accepted = Promise.resolve();

/**
 * What a chat is told when its message cannot be kept because the event log cannot write. `redelivers`: the platform
 * hands the message out again (Telegram), so it is answered later; otherwise the sender has to send it again.
 */
export function logFailingNotice(code: LogFailureCode, redelivers: boolean): string {
  const why = {
    disk_full: 'the disk where I keep my records is full',
    damaged: 'the file where I keep my records is damaged and must be repaired',
    write_failed: 'I cannot write my records (a disk error)',
  }[code];
  const then = redelivers ? 'Your message will be answered once I can again.' : 'Please send it again later.';
  return `I can't take messages right now: ${why}. ${then}`;
}

/**
 * The edge of the gateway: a channel's inbound message becomes `message.received` (work for the dispatcher) when it is
 * for the bot (`allow_from`, group triggers) and not a redelivery; the chat becomes the last active channel. Resolves
 * once the message is in the log, so the channel acknowledges it to the platform only then.
 *
 * While the log cannot write (a full disk), a message for the bot is not taken: it is refused with `NotKeptError`, so
 * a platform that redelivers keeps it until the log writes again, and its chat is told why, once per message. One
 * published just before the log failed is held in memory with the rest of the log's work and is answered; its
 * acknowledgement waits (it is refused, and its redeliveries dropped as duplicates are too) until it is in the log.
 */
export function acceptInbound(deps: InboundDeps): (actor: ChannelActor, message: ChannelMessage, commands: readonly string[]) => Promise<void> {
  /** Messages whose chat was told of the outage; forgotten once the log writes again. */
  const told = new Set<string>();

  const refuse = (actor: ChannelActor, message: ChannelMessage, health: FailingLog): Promise<void> => {
    const key = `${actor.id.name}:${message.messageId}`;
    const channel = actor.channel;
    if (!told.has(key) && channel) {
      told.add(key);
      const fields = { channel: actor.id.name, message_id: message.messageId, reason: health.reason };
      deps.logger.warn('inbound message not taken: the event log cannot write', fields);
      const notice = logFailingNotice(health.code, channel.capabilities.redelivers === true);
      channel.send(message.replyTo, notice).catch((error: unknown) => {
        const reason = (error as Error)?.message ?? String(error);
        deps.logger.warn('log failure notice not sent', { channel: actor.id.name, reason });
      });
    }
    return Promise.reject(new NotKeptError(health.reason));
  };

  /** Settles once everything published is in the log; refuses the message when the log fails before. */
  const kept = (actor: ChannelActor, message: ChannelMessage): Promise<void> =>
    deps.bus.durable({ failFast: true }).catch((error: unknown) => {
      if (error instanceof LogFailingError) return refuse(actor, message, error.health);
      throw error;
    });

  return (actor, message, commands) => {
    const { name, kind, account } = actor.id;
    const settings = deps.config().channel_list[name]?.settings;
    if (!settings) return accepted;
    const decision = applyTrigger(settings, message);
    if (decision.kind === 'ignore' || (decision.text === '' && !message.audio)) {
      deps.logger.debug('inbound ignored', { channel: name, reason: decision.kind === 'ignore' ? decision.reason : 'empty' });
      return accepted;
    }
    const health = deps.bus.logHealth();
    if (health.state === 'failing') return refuse(actor, message, health);
    told.clear();
    if (!deps.seen.add(`${name}:${message.messageId}`)) {
      deps.logger.debug('duplicate inbound dropped', { channel: name, message_id: message.messageId });
      return kept(actor, message);
    }
    deps.bus.publish({
      type: 'message.received',
      data: {
        channel: name,
        kind,
        account,
        message_id: message.messageId,
        chat: message.chat,
        reply_to: message.replyTo,
        sender: message.sender,
        sender_aliases: message.senderAliases,
        text: decision.text,
        space: message.space,
        topic: message.topic,
        mentioned: message.mentioned,
        commands: [...commands],
        media: (message.audio ?? []).map((clip) => ({ kind: 'audio' as const, file_id: clip.fileId, mime: clip.mime, name: clip.name })),
      },
    });
    try {
      const at = new Date(deps.now()).toISOString();
      writeLastChannel(deps.workspace, { channel: name, account, chat: message.chat, reply_to: message.replyTo, at });
    } catch (error) {
      // Only the heartbeat's answers read it; the message itself is in the log's hands.
      const reason = (error as Error)?.message ?? String(error);
      deps.logger.warn('last active chat not saved', { channel: name, reason });
    }
    return kept(actor, message);
  };
}

import type { ChannelMessage } from '../../adapters/channels/channel.js';
import { applyTrigger } from '../../adapters/channels/trigger.js';
import type { Bus } from '../../bus/index.js';
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
 * The edge of the gateway: a channel's inbound message becomes `message.received` (work for the dispatcher) when it is
 * for the bot (`allow_from`, group triggers) and not a redelivery; the chat becomes the last active channel. Resolves
 * once the message is in the log, so the channel acknowledges it to the platform only then.
 */
export function acceptInbound(deps: InboundDeps): (actor: ChannelActor, message: ChannelMessage, commands: readonly string[]) => Promise<void> {
  return (actor, message, commands) => {
    const { name, kind, account } = actor.id;
    const settings = deps.config().channel_list[name]?.settings;
    if (!settings) return accepted;
    const seenId = `${name}:${message.messageId}`;
    if (!deps.seen.add(seenId)) {
      deps.logger.debug('duplicate inbound dropped', { channel: name, message_id: message.messageId });
      return accepted;
    }
    const decision = applyTrigger(settings, message);
    if (decision.kind === 'ignore' || (decision.text === '' && !message.audio)) {
      deps.logger.debug('inbound ignored', { channel: name, reason: decision.kind === 'ignore' ? decision.reason : 'empty' });
      return accepted;
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
    writeLastChannel(deps.workspace, { channel: name, account, chat: message.chat, reply_to: message.replyTo, at: new Date(deps.now()).toISOString() });
    // A message the log did not keep (another cluster member took its stream, #27) is not acknowledged, and is not
    // taken as a redelivery when the platform hands it out again.
    return deps.bus.durable().catch((error: unknown) => {
      deps.seen.forget(seenId);
      throw error;
    });
  };
}

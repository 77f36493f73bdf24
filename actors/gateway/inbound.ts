import { NotKeptError, type ChannelMessage } from '../../adapters/channels/channel.js';
import { applyTrigger, senderListed } from '../../adapters/channels/trigger.js';
import { LogFailingError, type Bus, type FailingLog, type LogFailureCode } from '../../bus/index.js';
import { WEB_UI_CHANNEL_TYPE, type Config } from '../../store/config/index.js';
import { LogError } from '../../store/log/errors.js';
import type { Logger } from '../../store/logs/logger.js';
import type { PairingStore } from '../../store/pairing.js';
import { writeLastChannel } from '../../store/state.js';
import type { ChannelHandle } from './channel-actor.js';
import type { RecentIds } from './recent-ids.js';

export interface InboundDeps {
  bus: Bus;
  logger: Logger;
  config: () => Config;
  workspace: string;
  now: () => number;
  /** Inbound ids seen (`<channel>:<message id>`), seeded from the log's tail: a redelivery is dropped. */
  seen: RecentIds;
  /** The senders the owner let in without listing them in `allow_from`, and the codes strangers wait with. */
  pairing: PairingStore;
}

const accepted = Promise.resolve();

/** What a stranger reads: the code, and in one sentence how the owner lets them in. */
export function pairingText(code: string): string {
  return (
    `Pairing code: ${code}\n` +
    `This bot answers only the people its owner lets in: ask the owner to run "tern pairing approve ${code}" ` +
    `within the hour.`
  );
}

/** A sender the owner's own chat does not list: no turn and no code (pairing is for strangers on a platform). */
function notLetIn(deps: InboundDeps, name: string, message: ChannelMessage): Promise<void> {
  deps.logger.debug('inbound from a sender not let in ignored', { channel: name, chat: message.chat });
  return accepted;
}

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
 * A sender the channel does not let in gets no turn. In a direct chat they get a one-time code (`pairing.requested`,
 * and the code as a reply), at most one an hour; in a group, nothing (a code there would be everyone's to read).
 */
function stranger(deps: InboundDeps, actor: ChannelHandle, message: ChannelMessage): Promise<void> {
  const { name, account } = actor.id;
  if (!message.chat.startsWith('direct:')) {
    deps.logger.debug('inbound from a sender not let in ignored', { channel: name, chat: message.chat });
    return accepted;
  }
  let outcome;
  try {
    outcome = deps.pairing.request(
      {
        channel: name,
        account,
        sender: message.sender,
        aliases: message.senderAliases,
        chat: message.chat,
        reply_to: message.replyTo,
      },
      deps.now(),
    );
  } catch (error) {
    deps.logger.error('pairing request not recorded; the sender gets no code', {
      channel: name,
      reason: (error as Error).message,
    });
    return accepted;
  }
  if (outcome.kind !== 'issued') {
    deps.logger.debug('inbound from a sender not let in ignored', {
      channel: name,
      reason: outcome.kind === 'full' ? 'pending_requests_full' : 'code_sent_within_the_hour',
    });
    return accepted;
  }
  const { request } = outcome;
  deps.logger.info('pairing code sent to a sender not let in', {
    channel: name,
    sender: request.sender,
    code: request.code,
  });
  deps.bus.publish({
    type: 'pairing.requested',
    data: {
      channel: name,
      account,
      sender: request.sender,
      sender_aliases: request.aliases,
      chat: request.chat,
      code: request.code,
      expires_at: request.expires_at,
    },
  });
  deps.bus.publish({
    type: 'reply.requested',
    data: {
      message_id: message.messageId,
      outcome: 'message',
      text: pairingText(request.code),
      key: `${name}:${message.messageId}:pairing`,
      reply: { channel: name, chat: message.chat, reply_to: message.replyTo },
    },
  });
  return deps.bus.durable();
}

/**
 * The edge of the gateway: a channel's inbound message becomes `message.received` (work for the dispatcher) when its
 * sender may talk to the bot (`allow_from` lists them or is `*`, or the owner approved them; the dashboard's chat is
 * the owner's own), it is for the bot (group triggers) and not a redelivery; the chat becomes the last active channel.
 * Resolves once the message is in the log, so the channel acknowledges it to the platform only then.
 *
 * While the log cannot write (a full disk), a message for the bot is not taken: it is refused with `NotKeptError`, so
 * a platform that redelivers keeps it until the log writes again, and its chat is told why, once per message. One
 * published just before the log failed is held in memory with the rest of the log's work and is answered; its
 * acknowledgement waits (it is refused, and its redeliveries dropped as duplicates are too) until it is in the log.
 */
export function acceptInbound(
  deps: InboundDeps,
): (actor: ChannelHandle, message: ChannelMessage, commands: readonly string[]) => Promise<void> {
  /** Messages whose chat was told of the outage; forgotten once the log writes again. */
  const told = new Set<string>();

  const refuse = (actor: ChannelHandle, message: ChannelMessage, health: FailingLog): Promise<void> => {
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
  const kept = (actor: ChannelHandle, message: ChannelMessage): Promise<void> =>
    deps.bus.durable({ failFast: true }).catch((error: unknown) => {
      if (error instanceof LogFailingError) return refuse(actor, message, error.health);
      throw error;
    });

  return (actor, message, commands) => {
    const { name, kind, account } = actor.id;
    const settings = deps.config().channel_list[name]?.settings;
    if (!settings) return accepted;
    // The dashboard's chat sits behind the owner's password (trusted for exec or not): an empty allow_from leaves it
    // open, a list still applies.
    const ownChat = kind === WEB_UI_CHANNEL_TYPE;
    const open = ownChat && settings.allow_from.length === 0;
    if (!open && !senderListed(settings.allow_from, message.senderAliases) && !approved(deps, name, message)) {
      if (ownChat) return notLetIn(deps, name, message);
      return stranger(deps, actor, message);
    }
    const decision = applyTrigger(settings, message);
    if (decision.kind === 'ignore' || (decision.text === '' && !message.audio?.length && !message.media?.length)) {
      deps.logger.debug('inbound ignored', {
        channel: name,
        reason: decision.kind === 'ignore' ? decision.reason : 'empty',
      });
      return accepted;
    }
    const health = deps.bus.logHealth();
    if (health.state === 'failing') return refuse(actor, message, health);
    told.clear();
    const seenId = `${name}:${message.messageId}`;
    if (!deps.seen.add(seenId)) {
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
        media: [
          ...(message.audio ?? []).map((clip) => ({
            kind: 'audio' as const,
            file_id: clip.fileId,
            mime: clip.mime,
            name: clip.name,
          })),
          ...(message.media ?? []).map((file) => ({
            kind: file.kind,
            file_id: file.fileId,
            mime: file.mime,
            name: file.name,
          })),
        ],
      },
    });
    try {
      const at = new Date(deps.now()).toISOString();
      const last = { channel: name, account, chat: message.chat, reply_to: message.replyTo, at };
      writeLastChannel(deps.workspace, last, (problem) => deps.logger.warn(problem));
    } catch (error) {
      // Only the heartbeat's answers read it; the message itself is in the log's hands.
      const reason = (error as Error)?.message ?? String(error);
      deps.logger.warn('last active chat not saved', { channel: name, reason });
    }
    // A message the log did not keep because another cluster member took its stream (#27) is not acknowledged, and
    // is not taken as a redelivery when the platform hands it out again. One a failing disk did not keep was handled
    // all the same: its redelivery is a duplicate.
    return kept(actor, message).catch((error: unknown) => {
      if (error instanceof LogError && error.code === 'log_fenced') deps.seen.forget(seenId);
      throw error;
    });
  };
}

/** A pairing file that cannot be read lets nobody in by it (the error is logged). */
function approved(deps: InboundDeps, channel: string, message: ChannelMessage): boolean {
  try {
    return deps.pairing.isApproved(channel, message.sender);
  } catch (error) {
    deps.logger.error('pairing file not read; only allow_from lets senders in', {
      channel,
      reason: (error as Error).message,
    });
    return false;
  }
}

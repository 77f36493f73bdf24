import type { Subscription } from 'rxjs';
import {
  ChannelError,
  type Channel,
  type Choice,
  type OutboundFile,
  type SendFailure,
} from '../../adapters/channels/channel.js';
import { whenWritten } from '../../adapters/http/when-written.js';
import { splitMessage } from '../../adapters/channels/split.js';
import { splitOnMarker } from '../split-marker.js';
import type { Bus, Correlation, Envelope, EventDraft, ReplyTarget } from '../../bus/index.js';
import type { ChannelEntry } from '../../store/config/index.js';
import { LogError } from '../../store/log/errors.js';
import { ClusterError } from '../../store/cluster/errors.js';
import type { LocalJournal, SharedJournal } from '../../store/log/send-journal.js';
import type { Logger } from '../../store/logs/logger.js';
import { InFlight } from '../in-flight.js';
import type { ChannelDirectory } from './channel-directory.js';
import { supervisionOf } from './channel-factory.js';
import { RecentIds } from './recent-ids.js';
import { StreamView } from './stream-view.js';

/** The longest pause between two tries of a part, however many tries came before. */
const MAX_BACKOFF_MS = 30_000;
/** A platform asking for a longer wait (a flood ban) is not waited for: the part is given up, the chat told. */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** What a chat reads when a part of its reply never reached the platform (refused, or rate limited to the last try). */
export const NOT_DELIVERED_NOTICE = 'Part of my reply could not be delivered. Ask again if you still need it.';
/**
 * What a chat reads when the platform failed while taking a part (a 5xx after the request was sent): the part may be
 * there or not, and it is not sent again, so that it is never shown twice.
 */
export const MAYBE_DELIVERED_NOTICE =
  'Part of my reply may not have reached you: the messaging service failed while taking it, and I never send a ' +
  'message twice. Ask again if it is missing.';

/** How the sending of one part ended: out (now or before), or given up with what is known of it. */
type PartOutcome = 'sent' | 'not_sent' | 'unknown';

type Attempt =
  | { kind: 'sent'; messageId: string }
  | { kind: 'given_up'; outcome: 'not_sent' | 'unknown'; reason: string; attempts: number }
  /** The log was taken by another writer (a cluster member): the part is theirs to send. */
  | { kind: 'left' };

/**
 * What a failed try says about the part. One that never left the process (no connection, the channel restarting)
 * certainly did not arrive; one that left is what the channel says (`ChannelError.failure`), and from a channel that
 * cannot tell, it may have arrived.
 */
function failureOf(error: unknown, left: boolean): SendFailure {
  const known = error instanceof ChannelError ? error.failure : undefined;
  if (!left) {
    const asked = known?.retryAfterMs !== undefined ? { retryAfterMs: known.retryAfterMs } : {};
    return { delivered: 'no', retry: known?.retry ?? true, ...asked };
  }
  return known ?? { delivered: 'unknown', retry: true };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener('abort', wake, { once: true });
  });
}

export interface OutboxDeps {
  bus: Bus;
  logger: Logger;
  directory: ChannelDirectory;
  /** A `channel_list` entry's settings now (placeholder, typing, streaming). */
  entry: (channelName: string) => ChannelEntry | undefined;
  now: () => number;
  /** Send keys a previous run already sent (recovery): never sent again. */
  sent?: Iterable<string>;
  /** Placeholders a previous run showed (recovery), by key: a reply to their message replaces them. */
  placeholders?: Iterable<[string, string]>;
  /**
   * Told as a part leaves for its channel (a cluster account's marks: before, `store/cluster/send-marks.ts`), and once
   * its `message.sent` is in the log (`store/log/send-journal.ts`).
   */
  journal?:
    | Pick<LocalJournal, 'kind' | 'mark' | 'settle'>
    | Pick<SharedJournal, 'kind' | 'store' | 'left' | 'unmark' | 'settle'>;
  /** `agents.defaults.split_on_marker` now: a reply goes out as a message per part between markers. */
  splitOnMarker?: () => boolean;
  /**
   * Takes a reply for a channel with no `channel_list` entry here to the gateway that runs it (a cluster account's
   * holder, #40); resolves once that gateway's queue has it.
   */
  relay?: (event: Envelope<'reply.requested'>) => Promise<void>;
}

/** A routed message the outbox answers: where, and what it shows before the reply (typing, a placeholder, a stream). */
interface Pending {
  reply: ReplyTarget;
  correlation: Correlation;
  placeholder?: Promise<string | undefined>;
  typing: boolean;
  view?: StreamView;
}

const placeholderKey = (channel: string, messageId: string): string => `${channel}:${messageId}:placeholder`;

/** A routed message is known by its session and its id (two channels may give two messages the same id). */
const messageKey = (session: string | undefined, messageId: string): string => `${session ?? ''}\u0000${messageId}`;

/**
 * Replies leave through here. It consumes the `outbox` work (`reply.requested` with a target): each reply is split at
 * the channel's limit and each part sent under its key (`<key>:<part>`, from inbound message, turn and part) and
 * recorded as `message.sent`; a key already sent (in this run or the one before a crash) is skipped, so no part goes
 * out twice. Before a part reaches its channel its `message.sending` is in the log: a crash between the two leaves a
 * part the restart does not send again (`actors/recovery.ts`), and since the log keeps one order, a chat's next part
 * goes out only once the previous part's `message.sent` is in the log as well. Replies to one chat go out in order;
 * chats are independent. It also watches the work as it happens: a
 * routed message starts the typing indicator and the channel's placeholder, and a streaming channel shows the turn's
 * chunks (`provider.chunk`) in one message that the reply completes. A channel that is restarting gets a few tries
 * before a part is given up.
 */
export class Outbox {
  private readonly sent = new RecentIds(50_000);
  private readonly pending = new Map<string, Pending>();
  private readonly shownBefore: Map<string, string>;
  private readonly turns = new Map<string, string>();
  private readonly chats = new Map<string, Promise<void>>();
  private readonly inFlight = new InFlight();
  private subscriptions: Subscription[] = [];
  private stopped = false;
  /** Ends the pauses between tries at the stop. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: OutboxDeps) {
    for (const key of deps.sent ?? []) this.sent.add(key);
    this.shownBefore = new Map(deps.placeholders);
  }

  start(): void {
    const { bus } = this.deps;
    this.subscriptions = [
      bus.on('message.sent').subscribe((e) => void this.sent.add(e.data.send_key)),
      bus.on('message.routed').subscribe((e) => this.routed(e)),
      bus.on('turn.started').subscribe((e) => this.turnStarted(e)),
      bus.on('provider.chunk').subscribe((e) => {
        if (e.data.kind === 'text' && e.turn) this.viewOf(e.turn)?.chunk(e.data.delta);
      }),
      bus.work('outbox').subscribe((e) => this.enqueue(e)),
    ];
  }

  /**
   * The gateway's channels are stopping: no more work is taken (what is left stays in the log for the next start), a
   * part still being sent is not recorded and a failed one is not tried again.
   */
  stop(): void {
    this.stopped = true;
    this.stopping.abort();
    this.subscriptions.forEach((s) => s.unsubscribe());
  }

  /** Resolves when no reply is being delivered. */
  settled(): Promise<void> {
    return this.inFlight.settled();
  }

  /**
   * The typing indicator is best effort: a platform that refuses it (or throws) is logged, never a failure of the
   * reply.
   */
  private bestEffort(channel: string, what: string, call: () => Promise<void>): void {
    Promise.resolve()
      .then(call)
      .catch((error: unknown) =>
        this.deps.logger.debug(`${what} not shown`, { channel, reason: (error as Error)?.message ?? String(error) }),
      );
  }

  private channel(name: string): Channel | undefined {
    return this.deps.directory.get(name);
  }

  private routed(event: Envelope<'message.routed'>): void {
    const reply = event.data.reply;
    if (!reply) return;
    const settings = this.deps.entry(reply.channel)?.settings;
    const channel = this.channel(reply.channel);
    const typing = settings?.typing !== false && channel !== undefined;
    if (typing) this.bestEffort(reply.channel, 'typing', () => channel.typing(reply.reply_to));
    const pending: Pending = { reply, correlation: { agent: event.agent, session: event.session }, typing };
    if (settings?.placeholder && channel)
      pending.placeholder = this.placeholder(channel, reply, event, settings.placeholder);
    this.pending.set(messageKey(event.session, event.data.message_id), pending);
  }

  private placeholder(
    channel: Channel,
    reply: ReplyTarget,
    event: Envelope<'message.routed'>,
    text: string,
  ): Promise<string | undefined> {
    const key = placeholderKey(reply.channel, event.data.message_id);
    return channel.send(reply.reply_to, text).then(
      (id) => {
        this.deps.bus.publish({
          agent: event.agent,
          session: event.session,
          type: 'message.sent',
          data: { channel: reply.channel, chat: reply.chat, text, send_key: key, part: 0, message_id: id, media: [] },
        });
        return id;
      },
      () => undefined,
    );
  }

  /** A streaming channel shows the turn as it is written, unless a placeholder already stands for it. */
  private turnStarted(event: Envelope<'turn.started'>): void {
    const key = messageKey(event.session, event.data.message_id);
    const pending = this.pending.get(key);
    if (!pending || pending.placeholder || !event.turn) return;
    const settings = this.deps.entry(pending.reply.channel)?.settings;
    const channel = this.channel(pending.reply.channel);
    if (!settings?.streaming.enabled || !channel?.capabilities.streaming) return;
    this.turns.set(event.turn, key);
    pending.view = new StreamView(
      this.deps.bus,
      {
        reply: pending.reply,
        key: `${pending.reply.channel}:${event.data.message_id}:${event.turn}:stream`,
        correlation: { ...pending.correlation, turn: event.turn },
        channel: () => this.channel(pending.reply.channel),
      },
      settings.streaming,
      channel.capabilities.maxMessageLength,
      this.deps.now,
    );
  }

  private viewOf(turn: string): StreamView | undefined {
    const key = this.turns.get(turn);
    return key === undefined ? undefined : this.pending.get(key)?.view;
  }

  private enqueue(event: Envelope<'reply.requested'>): void {
    const reply = event.data.reply!;
    const chat = `${reply.channel}\u0000${reply.chat}`;
    const before = this.chats.get(chat) ?? Promise.resolve();
    const delivery = before
      .then(() => this.deliver(event, reply))
      .catch((error: unknown) => {
        this.deps.logger.error('reply not delivered', {
          channel: reply.channel,
          key: event.data.key,
          reason: (error as Error)?.message ?? String(error),
        });
      });
    this.chats.set(chat, delivery);
    void this.inFlight.track(delivery).finally(() => {
      if (this.chats.get(chat) === delivery) this.chats.delete(chat);
    });
  }

  /**
   * A reply's parts: its text split at the channel's limit (`choices` under the last part), then its files. Files go
   * as files with the text as the first one's caption when it fits the channel's caption limit (else the text goes
   * first on its own); a channel that cannot send files gets the text with each file named by its path.
   */
  private async deliver(event: Envelope<'reply.requested'>, reply: ReplyTarget): Promise<void> {
    if (this.deps.relay && this.deps.entry(reply.channel) === undefined) return this.relayed(event, this.deps.relay);
    const { message_id, key, choices } = event.data;
    const channel = this.channel(reply.channel);
    let files = event.data.files ?? [];
    let text = event.data.text;
    if (files.length > 0 && channel && !channel.sendFile) {
      text = [text, ...files.map((f) => `[${f.kind}: ${f.path}]`)].filter((line) => line.trim()).join('\n');
      files = [];
    }
    // A channel that is restarting is waited for as for text; its caption limit is Telegram's, the smallest.
    const captionLimit = channel
      ? (channel.capabilities.maxCaptionLength ?? channel.capabilities.maxMessageLength)
      : 1024;
    const caption = files.length > 0 && text.trim() !== '' && text.length <= captionLimit ? text : undefined;
    if (caption !== undefined) text = '';
    const pendingKey = messageKey(event.session, message_id);
    const pending = this.pending.get(pendingKey);
    const correlation: Correlation = { agent: event.agent, session: event.session, turn: event.turn };
    const before = placeholderKey(reply.channel, message_id);
    const shown = event.data.edit_of ?? (await pending?.placeholder) ?? this.shownBefore.get(before);
    // A platform that cannot edit keeps the placeholder and gets the reply as a new message.
    let editOf = channel?.capabilities.edits === false ? undefined : shown;
    this.shownBefore.delete(before);
    const limit = this.channel(reply.channel)?.capabilities.maxMessageLength ?? 4096;
    const view = pending?.view;
    const pieces = this.deps.splitOnMarker?.() ? splitOnMarker(text) : [text];
    let parts = text.trim() === '' ? [] : pieces.flatMap((piece) => splitMessage(piece, limit));
    if (view) {
      const result = await view.finish(text, parts.length <= 1);
      if (result.ending === 'streamed' && parts.length <= 1) parts = [];
      if (result.messageId !== undefined) editOf = result.messageId;
    }
    const outcomes: PartOutcome[] = [];
    for (const [index, part] of parts.entries()) {
      if (this.stopped) return;
      const last = index === parts.length - 1;
      const [edited, offered] = [index === 0 ? editOf : undefined, last ? choices : undefined];
      outcomes.push(await this.sendPart(reply, correlation, `${key}:${index}`, index, part, edited, offered));
    }
    for (const [index, file] of files.entries()) {
      if (this.stopped) return;
      const shown: OutboundFile = index === 0 && caption !== undefined ? { ...file, caption } : file;
      const [sendKey, text] = [`${key}:file${index}`, shown.caption ?? ''];
      outcomes.push(await this.sendPart(reply, correlation, sendKey, index, text, undefined, undefined, shown));
    }
    if (this.stopped) return;
    const failed = outcomes.some((outcome) => outcome !== 'sent');
    if (failed) {
      // Told after the reply's other parts, in the reply's place in the chat. A notice is sent again after a server
      // error: a second copy of it is better than a reply that vanished without a word.
      const notice = outcomes.includes('not_sent') ? NOT_DELIVERED_NOTICE : MAYBE_DELIVERED_NOTICE;
      const at = outcomes.length;
      await this.sendPart(reply, correlation, `${key}:notice`, at, notice, undefined, undefined, undefined, true);
      if (this.stopped) return;
    }
    this.deps.bus.publish({
      ...correlation,
      type: 'reply.delivered',
      data: { message_id, key, parts: parts.length + files.length, failed },
    });
    const done = pending?.typing ? this.channel(reply.channel) : undefined;
    if (done?.typingDone) this.bestEffort(reply.channel, 'typing done', () => done.typingDone!(reply.reply_to));
    this.pending.delete(pendingKey);
    if (event.turn) this.turns.delete(event.turn);
  }

  /**
   * A reply the gateway running its channel sends (#40): handed to it whole, tried until its queue has it, then
   * recorded as delivered here (its parts are that gateway's to send and record).
   */
  private async relayed(event: Envelope<'reply.requested'>, relay: NonNullable<OutboxDeps['relay']>): Promise<void> {
    const { message_id, key } = event.data;
    // Handed over only once this gateway's log has it: a log another writer took (its sessions moved to another
    // member) leaves the reply to that writer, which runs the message again.
    if (await this.logTaken()) {
      this.stopped = true;
      this.deps.logger.info("reply left to the sessions' new writer", { channel: event.data.reply?.channel });
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await relay(event);
        break;
      } catch (error) {
        if (this.stopped) return;
        const reason = (error as Error)?.message ?? String(error);
        this.deps.logger.warn('reply not handed to the gateway running its channel; trying again', { key, reason });
        await pause(Math.min(500 * 2 ** (attempt - 1), MAX_BACKOFF_MS), this.stopping.signal);
        if (this.stopped) return;
      }
    }
    const correlation: Correlation = { agent: event.agent, session: event.session, turn: event.turn };
    this.deps.bus.publish({
      ...correlation,
      type: 'reply.delivered',
      data: { message_id, key, parts: 0, failed: false },
    });
    this.pending.delete(messageKey(event.session, message_id));
    if (event.turn) this.turns.delete(event.turn);
  }

  /**
   * A part's sending: its intent in the log, then tries until it is out or given up. A part given up is recorded
   * (`message.undelivered`) and never sent again. An edit is tried again after a server error as well (it shows the
   * same text however often it is made), and so is a notice (`atLeastOnce`).
   */
  private async sendPart(
    reply: ReplyTarget,
    correlation: Correlation,
    sendKey: string,
    part: number,
    text: string,
    editOf: string | undefined,
    choices?: readonly Choice[],
    file?: OutboundFile,
    atLeastOnce = false,
  ): Promise<PartOutcome> {
    if (this.sent.has(sendKey)) return 'sent';
    const intent: EventDraft<'message.sending'> = {
      ...correlation,
      type: 'message.sending',
      data: { channel: reply.channel, chat: reply.chat, send_key: sendKey, part },
    };
    const repeatable = atLeastOnce || (editOf !== undefined && file === undefined);
    const attempt = await this.sendTrying(reply, intent, repeatable, (left) =>
      file ? this.sendFileOnce(reply, intent, file, left) : this.sendOnce(reply, intent, text, editOf, choices, left),
    );
    if (attempt.kind === 'left') return 'not_sent';
    if (attempt.kind === 'given_up') {
      // At the stop the reply stays in the log unfinished: the next start sends the part.
      if (this.stopped) return attempt.outcome;
      this.sent.add(sendKey);
      const { outcome, reason, attempts } = attempt;
      const { channel, chat } = reply;
      this.deps.logger.error('reply part not delivered', { channel, send_key: sendKey, outcome, attempts, reason });
      const data = { channel, chat, send_key: sendKey, part, outcome, reason, attempts };
      this.deps.bus.publish({ ...correlation, type: 'message.undelivered', data });
      this.settleWhenLogged(sendKey);
      return outcome;
    }
    const { messageId } = attempt;
    this.sent.add(sendKey);
    const media = file ? [{ kind: file.kind, path: file.path, ...(file.mime ? { mime: file.mime } : {}) }] : [];
    // Outside the tries: a part already out is never sent again because recording it failed.
    if (this.stopped) return 'sent';
    // Not awaited: the chat's next part is sent only once its own `message.sending` is in the log, and the log keeps
    // one order, so this record is in the log by then too.
    this.deps.bus.publish({
      ...correlation,
      type: 'message.sent',
      data: { channel: reply.channel, chat: reply.chat, text, send_key: sendKey, part, message_id: messageId, media },
    });
    this.settleWhenLogged(sendKey);
    return 'sent';
  }

  private settleWhenLogged(sendKey: string): void {
    const { journal } = this.deps;
    if (journal)
      void this.deps.bus.durable().then(
        () => journal.settle(sendKey),
        () => undefined,
      );
  }

  /** Whether the log refuses this gateway's writes for good because another writer took it (`log_fenced`). */
  private logTaken(): Promise<boolean> {
    const fenced = (error: unknown): boolean => error instanceof LogError && error.code === 'log_fenced';
    return this.deps.bus.durable().then(() => false, fenced);
  }

  /**
   * Tries a part until it is out. A try the platform did not take (a rate limit, no connection, the channel restarting)
   * is made again after a pause that doubles from `send_backoff_ms` (30 s at most) and lasts at least as long as the
   * platform asked (`retry_after`), up to `send_attempts` tries; a refusal is final. A try that may have reached the
   * chat (a server error after the request was sent) ends the tries unless the part is `repeatable`: sent again, it
   * could show twice.
   */
  private async sendTrying(
    reply: ReplyTarget,
    intent: EventDraft<'message.sending'>,
    repeatable: boolean,
    send: (left: () => void) => Promise<string>,
  ): Promise<Attempt> {
    const entry = this.deps.entry(reply.channel);
    const supervision = entry ? supervisionOf(entry) : { send_attempts: 6, send_backoff_ms: 500 };
    const { send_attempts: attempts, send_backoff_ms: backoffMs } = supervision;
    let intended = false;
    for (let attempt = 1; ; attempt++) {
      let left = false;
      try {
        if (!intended) {
          await this.intend(intent);
          intended = true;
        }
        return { kind: 'sent', messageId: await send(() => (left = true)) };
      } catch (error) {
        // A log another writer took (a cluster member took the channel account over, #27) keeps nothing this gateway
        // does: the part is the new writer's to send, and this outbox is done (trying again would hold up the stop).
        if (await this.logTaken()) {
          this.stopped = true;
          this.deps.logger.info("reply left to the channel account's new writer", { channel: reply.channel });
          return { kind: 'left' };
        }
        // A member whose lease may have run out holds the part back (`SendMarks.store`) until it knows: it renews the
        // lease and sends, or loses it and stops this outbox. That wait is not one of the part's tries.
        if (error instanceof ClusterError && (error.code === 'lease_lost' || error.code === 'mark_not_stored')) {
          attempt--;
          await pause(backoffMs, this.stopping.signal);
          if (this.stopped) return { kind: 'given_up', outcome: 'not_sent', reason: error.message, attempts: attempt };
          continue;
        }
        const failure = failureOf(error, left);
        const reason = (error as Error)?.message ?? String(error);
        const outcome = failure.delivered === 'no' ? 'not_sent' : 'unknown';
        if (outcome === 'unknown' && !repeatable) return { kind: 'given_up', outcome, reason, attempts: attempt };
        if (!failure.retry || attempt >= attempts || this.stopped) {
          return { kind: 'given_up', outcome, reason, attempts: attempt };
        }
        const waitMs = Math.max(failure.retryAfterMs ?? 0, Math.min(backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS));
        if (waitMs > MAX_RETRY_AFTER_MS) {
          const asked = `${reason} (asked to wait ${Math.round(waitMs / 1000)} s)`;
          return { kind: 'given_up', outcome, reason: asked, attempts: attempt };
        }
        const { send_key } = intent.data;
        this.deps.logger.warn('reply part not taken; trying again', {
          channel: reply.channel,
          send_key,
          attempt,
          wait_ms: waitMs,
          reason,
        });
        await pause(waitMs, this.stopping.signal);
        if (this.stopped) return { kind: 'given_up', outcome, reason, attempts: attempt };
      }
    }
  }

  /**
   * Records that a part is about to reach its channel and waits until that is in the log. A crash between the send
   * and its `message.sent` leaves a part nobody can confirm (no platform says whether it got it): the restart does not
   * send it again, rather than risk a second copy in the chat, if the send journal says it may have left.
   */
  private async intend(intent: EventDraft<'message.sending'>): Promise<void> {
    this.deps.bus.publish(intent);
    await this.deps.bus.durable();
  }

  /**
   * Hands a part to its channel and marks it as it leaves (`left`, and the send journal): when the channel's request is
   * written (a channel that reports writes), else as it is handed over. An intent the journal never marked was in the
   * log while its part still waited (for the log's word, for a connection), and the restart sends that part.
   */
  private handOver<T>(channel: Channel, sendKey: string, left: () => void, send: () => Promise<T>): Promise<T> {
    const { journal } = this.deps;
    if (journal?.kind === 'shared') return this.handOverMarked(journal, channel, sendKey, left, send);
    const mark = (): void => {
      journal?.mark(sendKey);
      left();
    };
    if (channel.capabilities.reportsWrites) return whenWritten(mark, send);
    mark();
    return send();
  }

  /**
   * Hands a part over with a cluster account's marks (#40): `leaving` is stored right before the request is dispatched
   * (this member still reaches NATS), `left` is written to NATS as the request's first byte is about to be, so the
   * member taking the account over knows whether the part may have left however this member ends; a request that
   * fails before its first byte is written never left, and is unmarked. A mark refused (`lease_lost`: this member may
   * no longer run the account) or not stored fails the part as not sent, its request not written, and it is tried
   * again while the member runs the account.
   */
  private async handOverMarked<T>(
    journal: Pick<SharedJournal, 'store' | 'left' | 'unmark'>,
    channel: Channel,
    sendKey: string,
    left: () => void,
    send: () => Promise<T>,
  ): Promise<T> {
    let stored = false;
    let written = false;
    // The channel wraps what its request threw in its own error: the refusal is what the outbox must see.
    let refused: unknown;
    const store = async (): Promise<void> => {
      try {
        await journal.store(sendKey);
        stored = true;
      } catch (error) {
        refused = error;
        throw error;
      }
    };
    // Throws when the request must not be written: `whenWritten` aborts it before its first byte.
    const leaving = (): void => {
      try {
        journal.left(sendKey);
      } catch (error) {
        refused = error;
        throw error;
      }
      written = true;
      left();
    };
    try {
      if (channel.capabilities.reportsWrites) return await whenWritten(leaving, send, store);
      await store();
      leaving();
      return await send();
    } catch (error) {
      // A request the channel says the platform certainly did not take (a keep-alive connection closed unread, a
      // 429) is unmarked too: kept, it would make the next holder take the part as maybe sent, and the part would be
      // lost if this member lost the account before its next try (#40's failover loop, a reply never sent).
      const notTaken = error instanceof ChannelError && error.failure?.delivered === 'no';
      if (stored && (!written || notTaken)) journal.unmark(sendKey);
      throw refused ?? error;
    }
  }

  private async sendFileOnce(
    reply: ReplyTarget,
    intent: EventDraft<'message.sending'>,
    file: OutboundFile,
    left: () => void,
  ): Promise<string> {
    const channel = this.channel(reply.channel);
    if (!channel?.sendFile) throw this.absent(reply.channel);
    const sendFile = channel.sendFile.bind(channel);
    return this.handOver(channel, intent.data.send_key, left, () => sendFile(reply.reply_to, file));
  }

  private async sendOnce(
    reply: ReplyTarget,
    intent: EventDraft<'message.sending'>,
    text: string,
    editOf: string | undefined,
    choices: readonly Choice[] | undefined,
    left: () => void,
  ): Promise<string> {
    const channel = this.channel(reply.channel);
    if (!channel) throw this.absent(reply.channel);
    return this.handOver(channel, intent.data.send_key, left, async () => {
      if (choices && channel.sendChoices) return channel.sendChoices(reply.reply_to, text, choices);
      if (editOf === undefined) return channel.send(reply.reply_to, text);
      await channel.edit(reply.reply_to, editOf, text);
      return editOf;
    });
  }

  private absent(name: string): ChannelError {
    const where = `channel ${name} ${this.stopped ? 'has stopped' : 'is restarting'}`;
    return new ChannelError('network', where, { delivered: 'no', retry: true });
  }
}

import type { Choice, OutboundFile } from '../../adapters/channels/channel.js';
import { splitMessage } from '../../adapters/channels/split.js';
import type { Bus, Correlation } from '../../bus/index.js';
import type { Logger } from '../../store/logs/logger.js';
import type { ChannelActor } from './channel-actor.js';
import { RecentIds } from './recent-ids.js';

export interface Delivery {
  actor: ChannelActor;
  chat: string;
  replyTo: string;
  /** `<channel>:<inbound message id>`: a part's send key adds the turn and the part's index. */
  keyBase: string;
  correlation: Correlation;
  /** An already sent message (placeholder or streamed text) that the first part replaces by an edit. */
  editFirst?: string;
}

const RETRIES = 3;
const RETRY_PAUSE_MS = 500;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Replies leave through here: split at the channel's limit, each part sent under its key
 * (inbound message, turn, part) and recorded as `message.sent`; a key already sent is skipped, so a retry
 * never sends a part twice. A channel that is restarting gets a few tries before the part is given up.
 */
export class Outbox {
  private readonly sent = new RecentIds(50_000);
  private stopped = false;

  constructor(private readonly bus: Bus, private readonly logger: Logger) {}

  /**
   * The gateway's channels have stopped and its event log is closing: a part still being sent is not recorded
   * and a failed one is not tried again.
   */
  stop(): void {
    this.stopped = true;
  }

  /** `choices` become buttons under the last part where the channel has them; elsewhere the text says what to reply. */
  async deliver(delivery: Delivery, turn: string, text: string, choices?: readonly Choice[]): Promise<void> {
    if (text.trim() === '') return;
    const limit = delivery.actor.channel?.capabilities.maxMessageLength ?? 4096;
    const parts = splitMessage(text, limit);
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      await this.sendPart(delivery, `${delivery.keyBase}:${turn}:${index}`, index, part, index === 0 ? delivery.editFirst : undefined, last ? choices : undefined);
    }
  }

  /**
   * Files with their text: the text is the first file's caption when it fits the channel's caption limit, else it
   * goes first as a message of its own. Each file is a part under its own key (`…:<turn>:file<index>`). A channel that
   * cannot send files gets the text with each file named by its path.
   */
  async deliverFiles(delivery: Delivery, turn: string, text: string, files: readonly OutboundFile[]): Promise<void> {
    const channel = delivery.actor.channel;
    if (channel && !channel.sendFile) return this.deliver(delivery, turn, [text, ...files.map((f) => `[${f.kind}: ${f.path}]`)].filter((line) => line.trim()).join('\n'));
    // A channel that is restarting is waited for as for text; its caption limit is Telegram's, the smallest.
    const limit = channel ? channel.capabilities.maxCaptionLength ?? channel.capabilities.maxMessageLength : 1024;
    const caption = text.trim() !== '' && text.length <= limit ? text : undefined;
    if (text.trim() !== '' && caption === undefined) await this.deliver(delivery, turn, text);
    for (const [index, file] of files.entries()) {
      const sent = index === 0 && caption !== undefined ? { ...file, caption } : file;
      await this.sendPart(delivery, `${delivery.keyBase}:${turn}:file${index}`, index, sent.caption ?? '', undefined, undefined, sent);
    }
  }

  private async sendPart(delivery: Delivery, sendKey: string, part: number, text: string, editOf: string | undefined, choices: readonly Choice[] | undefined, file?: OutboundFile): Promise<void> {
    if (this.sent.has(sendKey)) return;
    const messageId = await this.sendTrying(delivery, sendKey, text, editOf, choices, file);
    if (messageId === undefined) return;
    this.sent.add(sendKey);
    const media = file ? [{ kind: file.kind, path: file.path, ...(file.mime ? { mime: file.mime } : {}) }] : [];
    // Outside the tries: a part already out is never sent again because recording it failed.
    if (!this.stopped) this.bus.publish({ ...delivery.correlation, type: 'message.sent', data: { channel: delivery.actor.id.name, chat: delivery.chat, text, send_key: sendKey, part, message_id: messageId, media } });
  }

  /** The sent message's id, or undefined once the part is given up (and logged). */
  private async sendTrying(delivery: Delivery, sendKey: string, text: string, editOf: string | undefined, choices: readonly Choice[] | undefined, file?: OutboundFile): Promise<string | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return file ? await this.sendFileOnce(delivery, file) : await this.sendOnce(delivery, text, editOf, choices);
      } catch (error) {
        if (attempt >= RETRIES || this.stopped) {
          this.logger.error('reply not delivered', { channel: delivery.actor.id.name, send_key: sendKey, reason: (error as Error).message });
          return undefined;
        }
        await pause(RETRY_PAUSE_MS * attempt);
      }
    }
  }

  private async sendFileOnce(delivery: Delivery, file: OutboundFile): Promise<string> {
    const channel = delivery.actor.channel;
    if (!channel?.sendFile) throw new Error(`channel ${delivery.actor.id.name} ${this.stopped ? 'has stopped' : 'is restarting'}`);
    return channel.sendFile(delivery.replyTo, file);
  }

  private async sendOnce(delivery: Delivery, text: string, editOf: string | undefined, choices: readonly Choice[] | undefined): Promise<string> {
    const channel = delivery.actor.channel;
    if (!channel) throw new Error(`channel ${delivery.actor.id.name} ${this.stopped ? 'has stopped' : 'is restarting'}`);
    if (choices && channel.sendChoices) return channel.sendChoices(delivery.replyTo, text, choices);
    if (editOf === undefined) return channel.send(delivery.replyTo, text);
    await channel.edit(delivery.replyTo, editOf, text);
    return editOf;
  }
}

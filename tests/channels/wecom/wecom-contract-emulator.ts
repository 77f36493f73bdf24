// The WeCom emulator as the channel contract kit sees it: one-to-one chats with colleagues, the bot's replies there
// (a stream on the user's message, a pushed message after), and the long connection's bad days.
import type { ContractEmulator, Conversation, SentMessage } from '../contract/emulator.js';
import { WeComEmulator } from './wecom-emulator.js';

export class WeComContractEmulator implements ContractEmulator {
  /** What each message delivered, by its id, for a redelivery. */
  private readonly delivered = new Map<string, Record<string, unknown>>();

  private constructor(readonly wecom: WeComEmulator) {}

  static async start(): Promise<WeComContractEmulator> {
    return new WeComContractEmulator(await WeComEmulator.start());
  }

  settings(): Record<string, unknown> {
    const { botId, secret, url } = this.wecom;
    return { bot_id: botId, secret, websocket_url: url };
  }

  secrets(): string[] {
    return [this.wecom.secret];
  }

  direct(name: string): Conversation {
    const user = this.wecom.user(name);
    return {
      sender: user.userId,
      say: (text) => this.spoken(() => user.say(text)),
      sendImage: (bytes, caption) => this.spoken(() => user.sendImage(bytes, caption)),
      sendVoice: () => Promise.reject(new Error('WeCom hands bots the transcript of a voice message only')),
      redeliver: async (said) => this.wecom.redeliver(this.delivered.get(said.id)!),
      // A finished stream is one message whose contents replaced each other (an edit each), in the order the streams
      // opened; an unfinished one is the bot still at work (typing), not yet a message.
      sent: () => {
        const streams = user
          .streams()
          .filter((s) => s.finished)
          .map((s) => ({
            order: s.openedAt,
            message: { id: s.id, text: s.contents.at(-1)!, edits: s.contents.slice(0, -1), at: s.at },
          }));
        const pushes = user.pushes().map((p, i) => ({
          order: p.at,
          message: {
            id: `push-${i}`,
            text: p.content,
            edits: [],
            at: p.at,
            ...(p.media ? { file: { name: p.media.filename, bytes: p.media.bytes } } : {}),
          } satisfies SentMessage,
        }));
        return [...streams, ...pushes].sort((a, b) => a.order - b.order).map((entry) => entry.message);
      },
      // An unfinished stream is WeCom's "the bot is working on it".
      typing: () => user.streams().filter((s) => s.contents.length > 1 || !s.finished).length,
    };
  }

  rateLimitSends(): void {
    throw new Error('the WeCom emulator has no rate limit');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.wecom.outage(ms);
  }

  connections(): number {
    return this.wecom.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.wecom.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.wecom.close();
  }

  /** WeCom pushes only to a connected bot: the colleague speaks once the bot is (back) online. */
  private async spoken(deliver: () => Record<string, unknown>): Promise<{ id: string }> {
    await this.wecom.online();
    const body = deliver();
    const id = String(body.msgid);
    this.delivered.set(id, body);
    return { id };
  }
}

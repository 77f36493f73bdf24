// The QQ bot platform emulator as the channel contract kit sees it: private (C2C) chats, what the bot sent there (an
// uploaded file joined to the media message that carries it), and the platform's dropped sessions and lost answers.
import type { ContractEmulator, Conversation, SentMessage } from '../contract/emulator.js';
import { QqEmulator, type QqSent } from './qq-emulator.js';

export class QqContractEmulator implements ContractEmulator {
  private constructor(readonly qq: QqEmulator) {}

  static async start(): Promise<QqContractEmulator> {
    return new QqContractEmulator(await QqEmulator.start());
  }

  settings(): Record<string, unknown> {
    return { app_id: this.qq.appId, app_secret: this.qq.appSecret, base_url: this.qq.url };
  }

  secrets(): string[] {
    return [this.qq.appSecret];
  }

  direct(): Conversation {
    const user = this.qq.user();
    return {
      sender: user.openid,
      say: (text) => this.spoken(() => user.say(text)),
      sendImage: (bytes, caption) => this.spoken(() => user.sendImage(bytes, caption)),
      sendVoice: (bytes) => this.spoken(() => user.sendVoice(bytes)),
      redeliver: async (said) => this.qq.redispatch(said.id),
      sent: () => user.sent().map((m) => this.asSent(m)),
      typing: () => user.typing(),
    };
  }

  rateLimitSends(): void {
    throw new Error('the QQ emulator has no rate limit');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.qq.outage(ms);
  }

  connections(): number {
    return this.qq.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.qq.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.qq.close();
  }

  /** QQ dispatches only to a connected session: the user speaks once the bot is (back) online. */
  private async spoken(dispatch: () => string): Promise<{ id: string }> {
    await this.qq.online();
    return { id: dispatch() };
  }

  private asSent(message: QqSent): SentMessage {
    const text = typeof message.body.content === 'string' ? message.body.content : '';
    const info = (message.body.media as { file_info?: unknown } | undefined)?.file_info;
    const file = typeof info === 'string' ? this.qq.uploaded(info) : undefined;
    return {
      id: message.id,
      text,
      edits: [],
      at: message.at,
      ...(file ? { file: { ...file, ...(text.trim() ? { caption: text } : {}) } } : {}),
    };
  }
}

// The Feishu emulator as the channel contract kit sees it: one-to-one chats and topic threads of a group, the cards and
// files the bot sent there, and the platform's frequency control, dropped long connections and lost answers.
import type { ContractEmulator, Conversation, SentMessage } from '../contract/emulator.js';
import { FeishuEmulator, type FeishuSent } from './feishu-emulator.js';

export class FeishuContractEmulator implements ContractEmulator {
  /** What each message delivered, by its id, for a redelivery. */
  private readonly delivered = new Map<string, Record<string, unknown>>();

  private constructor(readonly feishu: FeishuEmulator) {}

  static async start(): Promise<FeishuContractEmulator> {
    return new FeishuContractEmulator(await FeishuEmulator.start());
  }

  settings(): Record<string, unknown> {
    const { appId, appSecret, url } = this.feishu;
    return { app_id: appId, app_secret: appSecret, base_url: url };
  }

  secrets(): string[] {
    return [this.feishu.appSecret];
  }

  direct(_name: string): Conversation {
    const user = this.feishu.user();
    return {
      sender: user.openId,
      say: (text) => this.spoken(() => user.say(text)),
      sendImage: (bytes) => this.spoken(() => user.sendImage(bytes)),
      sendVoice: (bytes) => this.spoken(() => user.sendVoice(bytes)),
      redeliver: async (said) => this.feishu.redeliver(this.delivered.get(said.id)!),
      sent: () => user.sent().map((m) => this.asSent(m)),
      typing: () => 0,
    };
  }

  /** A topic thread of a group: what the bot sent counts only when it landed in that thread. */
  thread(_name: string): Conversation {
    const topic = this.feishu.topic();
    const textOnly = (): Promise<never> => Promise.reject(new Error('the kit says only text in a Feishu topic'));
    return {
      sender: topic.openId,
      say: (text) => this.spoken(() => topic.say(text)),
      sendImage: textOnly,
      sendVoice: textOnly,
      redeliver: async (said) => this.feishu.redeliver(this.delivered.get(said.id)!),
      sent: () => topic.sent().map((m) => this.asSent(m)),
      typing: () => 0,
    };
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    this.feishu.rateLimitSends(count, retryAfterSeconds);
  }

  rateLimited(): number[] {
    return this.feishu.limitedAt;
  }

  rejectNextFormat(): void {
    this.feishu.refuseNextCard = true;
  }

  outage(ms: number): Promise<void> {
    return this.feishu.outage(ms);
  }

  connections(): number {
    return this.feishu.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.feishu.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.feishu.close();
  }

  /** A file message carries only its key: the upload it names holds the name and bytes. */
  private asSent(m: FeishuSent): SentMessage {
    const base = { id: m.id, text: m.text, edits: m.versions.slice(0, -1), at: m.at };
    if (m.type !== 'file') return base;
    const key = (JSON.parse(m.text) as { file_key?: string }).file_key;
    const upload = this.feishu.uploads.find((u) => u.key === key);
    return upload ? { ...base, file: { name: upload.fields.file_name ?? '', bytes: upload.bytes } } : base;
  }

  /** Events go out over the long connection only: the user speaks once the bot is (back) online. */
  private async spoken(deliver: () => Record<string, unknown>): Promise<{ id: string }> {
    await this.feishu.online();
    const event = deliver();
    const id = String((event.event as { message: { message_id: string } }).message.message_id);
    this.delivered.set(id, event);
    return { id };
  }
}

// The DingTalk emulator as the channel contract kit sees it: one-to-one chats with colleagues, the Markdown the bot
// replied there, and the platform's dropped stream connections and lost answers.
import type { ContractEmulator, Conversation } from '../contract/emulator.js';
import { DingTalkEmulator } from './dingtalk-emulator.js';

export class DingTalkContractEmulator implements ContractEmulator {
  /** What each message delivered, by its id, for a redelivery. */
  private readonly delivered = new Map<string, Record<string, unknown>>();

  private constructor(readonly dingtalk: DingTalkEmulator) {}

  static async start(): Promise<DingTalkContractEmulator> {
    return new DingTalkContractEmulator(await DingTalkEmulator.start());
  }

  settings(): Record<string, unknown> {
    const { clientId, clientSecret, url } = this.dingtalk;
    return { client_id: clientId, client_secret: clientSecret, base_url: url };
  }

  secrets(): string[] {
    return [this.dingtalk.clientSecret];
  }

  direct(name: string): Conversation {
    const user = this.dingtalk.user(name);
    return {
      sender: user.staffId,
      say: (text) => this.spoken(() => user.say(text)),
      sendImage: (bytes) => this.spoken(() => user.sendImage(bytes)),
      sendVoice: (bytes) => this.spoken(() => user.sendVoice(bytes)),
      redeliver: async (said) => this.dingtalk.redeliver(this.delivered.get(said.id)!),
      sent: () =>
        user.sent().map((m, i) => ({
          id: `${m.via}-${i}`,
          text: m.text,
          edits: [],
          at: m.at,
          ...(m.file ? { file: { name: m.file.name, bytes: m.file.bytes } } : {}),
        })),
      typing: () => 0,
    };
  }

  rateLimitSends(): void {
    throw new Error('the DingTalk emulator has no rate limit');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.dingtalk.outage(ms);
  }

  connections(): number {
    return this.dingtalk.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.dingtalk.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.dingtalk.close();
  }

  /** Stream mode pushes only to a connected client: the colleague speaks once the bot is (back) online. */
  private async spoken(deliver: () => Record<string, unknown>): Promise<{ id: string }> {
    await this.dingtalk.online();
    const data = deliver();
    const id = String(data.msgId);
    this.delivered.set(id, data);
    return { id };
  }
}

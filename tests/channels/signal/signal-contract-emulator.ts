// The loopback signal-cli daemon as the channel contract kit sees it: chats with Signal users, what the bot sent them
// (its data-URI attachment decoded), the daemon's dropped connections and held answers.
import type { ContractEmulator, Conversation } from '../contract/emulator.js';
import { SignalCliDaemon } from '../../support/signal-cli.js';

export class SignalContractEmulator implements ContractEmulator {
  private constructor(readonly daemon: SignalCliDaemon) {}

  static async start(): Promise<SignalContractEmulator> {
    return new SignalContractEmulator(await SignalCliDaemon.start());
  }

  settings(): Record<string, unknown> {
    return { account: this.daemon.account, daemon_address: this.daemon.address };
  }

  secrets(): string[] {
    // signal-cli holds the account's keys: the settings carry no secret.
    return [];
  }

  direct(name: string): Conversation {
    const user = this.daemon.user(name);
    const said = async (send: () => number) => {
      // signal-cli hands a message only to a connected client.
      await this.daemon.online();
      return { id: String(send()) };
    };
    return {
      sender: user.number,
      say: (text) => said(() => this.daemon.say(user, text)),
      sendImage: (bytes, caption) => said(() => this.daemon.say(user, caption, [{ mime: 'image/png', bytes }])),
      sendVoice: (bytes) => said(() => this.daemon.say(user, '', [{ mime: 'audio/ogg', bytes }])),
      redeliver: async (message) => this.daemon.redeliver(Number(message.id)),
      sent: () =>
        this.daemon.to(user.number).map((m) => ({
          id: String(m.timestamp),
          text: m.text,
          edits: [],
          at: m.at,
          ...(m.attachments[0]
            ? { file: { name: m.attachments[0].name, bytes: m.attachments[0].bytes, caption: m.text } }
            : {}),
        })),
      typing: () => this.daemon.typing.get(user.number) ?? 0,
    };
  }

  rateLimitSends(): void {
    throw new Error('signal-cli answers no retry_after');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.daemon.outage(ms);
  }

  connections(): number {
    return this.daemon.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.daemon.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.daemon.close();
  }
}

// The OneBot v11 emulator as the channel contract kit sees it: private chats with QQ users, what the bot sent them
// (a file segment's bytes decoded from its base64), and the implementation's dropped connections and lost answers.
import type { ContractEmulator, Conversation, SentMessage } from '../contract/emulator.js';
import { OneBotEmulator, type BotMessage } from './onebot-emulator.js';

/** A message the bot sent, as the contract reads it: a `file`, `image` or `record` segment is its file. */
function asSent(message: BotMessage): SentMessage {
  const file = message.segments.find((s) => ['file', 'image', 'record', 'video'].includes(s.type));
  const inline = String(file?.data.file ?? '');
  return {
    id: String(message.id),
    text: message.text,
    edits: [],
    at: message.at,
    ...(file && inline.startsWith('base64://')
      ? {
          file: {
            name: String(file.data.name ?? ''),
            bytes: Buffer.from(inline.slice('base64://'.length), 'base64'),
            ...(message.text ? { caption: message.text } : {}),
          },
        }
      : {}),
  };
}

export class OneBotContractEmulator implements ContractEmulator {
  private constructor(readonly onebot: OneBotEmulator) {}

  static async start(): Promise<OneBotContractEmulator> {
    return new OneBotContractEmulator(await OneBotEmulator.start());
  }

  settings(): Record<string, unknown> {
    return { ws_url: this.onebot.url, access_token: this.onebot.accessToken };
  }

  secrets(): string[] {
    return [this.onebot.accessToken];
  }

  direct(name: string): Conversation {
    const user = this.onebot.user(name);
    return {
      sender: String(user.id),
      say: (text) => this.spoken(() => user.say(text)),
      sendImage: (bytes, caption) => this.spoken(() => user.sendImage(bytes, caption)),
      sendVoice: (bytes) => this.spoken(() => user.sendVoice(bytes)),
      redeliver: async (said) => this.onebot.repost({ id: Number(said.id) }),
      sent: () => user.sent().map(asSent),
      typing: () => 0,
    };
  }

  /** A forward WebSocket delivers only to a connected bot: the user speaks once it is (back) online. */
  private async spoken(post: () => { id: number }): Promise<{ id: string }> {
    await this.onebot.online();
    return { id: String(post().id) };
  }

  rateLimitSends(): void {
    throw new Error('OneBot v11 has no rate-limit answer');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.onebot.outage(ms);
  }

  connections(): number {
    return this.onebot.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.onebot.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.onebot.close();
  }
}

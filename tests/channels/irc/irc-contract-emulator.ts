// The loopback IRC server as the channel contract kit sees it: private chats with IRC users and what the bot sent
// them (a `draft/multiline` batch is one message), the server's dropped connections and held echoes.
import type { ContractEmulator, Conversation } from '../contract/emulator.js';
import { IrcServer } from '../../support/irc-server.js';

export class IrcContractEmulator implements ContractEmulator {
  private constructor(readonly irc: IrcServer) {}

  static async start(): Promise<IrcContractEmulator> {
    return new IrcContractEmulator(await IrcServer.start());
  }

  settings(): Record<string, unknown> {
    return { server: this.irc.address, tls: false, nick: 'ternbot', password: this.irc.password };
  }

  secrets(): string[] {
    return [this.irc.password];
  }

  direct(name: string): Conversation {
    const said = new Map<string, string>();
    return {
      sender: name,
      say: async (text) => {
        // A server relays only to a connected bot: the user speaks once it is (back) online.
        await this.irc.online();
        const id = this.irc.say(name, '$bot', text);
        said.set(id, text);
        return { id };
      },
      sendImage: () => Promise.reject(new Error('IRC carries no pictures')),
      sendVoice: () => Promise.reject(new Error('IRC carries no recordings')),
      redeliver: () => Promise.reject(new Error('IRC never delivers a message twice')),
      sent: () => this.irc.to(name).map((m) => ({ id: m.id, text: m.text, edits: [], at: m.at })),
      typing: () => this.irc.typing.get(name) ?? 0,
    };
  }

  rateLimitSends(): void {
    throw new Error('IRC has no rate-limit answer');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.irc.outage(ms);
  }

  connections(): number {
    return this.irc.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.irc.holdEchoes();
  }

  close(): Promise<void> {
    return this.irc.close();
  }
}

// The users of a `pico` channel as the channel contract kit sees them: each conversation is a Pico client of its own
// session, connected to the gateway's `/pico/ws` with the entry's token. The gateway is the server here, so the
// platform's bad days (429s, dropped connections of the bot's) have no part.
import { randomBytes } from 'node:crypto';
import type { ContractEmulator, Conversation } from '../contract/emulator.js';
import { PicoTestClient } from './pico-test-client.js';

export class PicoContractClients implements ContractEmulator {
  readonly token = `pico-${randomBytes(8).toString('hex')}`;
  private url = '';
  private readonly clients: PicoTestClient[] = [];

  static async start(): Promise<PicoContractClients> {
    return new PicoContractClients();
  }

  settings(): Record<string, unknown> {
    return { token: this.token };
  }

  secrets(): string[] {
    return [this.token];
  }

  /** The gateway's address, from the webhook route the kit names: its clients connect to `/pico/ws` there. */
  attach(webhookUrl: string): void {
    this.url = `ws://${new URL(webhookUrl).host}/pico/ws`;
  }

  direct(name: string): Conversation {
    const client = new PicoTestClient(this.url, `${name}-${this.clients.length + 1}`, this.token);
    this.clients.push(client);
    const textOnly = (): never => {
      throw new Error('a Pico client sends text only');
    };
    return {
      sender: client.session,
      say: (text) => client.say(text),
      sendImage: textOnly,
      sendVoice: textOnly,
      redeliver: (said) => client.resend(said.id),
      sent: () => client.messages,
      typing: () => client.typingStarts,
    };
  }

  rateLimitSends(): void {
    throw new Error('the Pico Protocol has no rate-limit answer');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(): Promise<void> {
    throw new Error('the clients connect to the gateway: there is no connection of the bot to drop');
  }

  connections(): number {
    return this.clients.length;
  }

  /** The protocol answers no frame of the server's: what is held is the messages the clients took meanwhile. */
  holdSendAnswers(): { held(): number; release(): void } {
    const count = () => this.clients.reduce((sum, client) => sum + client.messages.length, 0);
    const before = count();
    return { held: () => count() - before, release: () => undefined };
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.close();
  }
}

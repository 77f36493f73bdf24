// The Pico server emulator as the channel contract kit sees it: each conversation is a session of the server, its
// user's messages `message.create` frames (a picture the peer's bare `data:` URL in `media.create`, a recording
// Tern's media item), what the bot sent the `message.send` frames of that session.
import type { ContractEmulator, Conversation, SentMessage } from '../contract/emulator.js';
import { PicoServerEmulator, type ClientSaid } from './pico-server-emulator.js';

const asSent = (frame: ClientSaid): SentMessage => ({
  id: frame.id ?? '',
  text: frame.payload?.content ?? '',
  edits: [],
  at: frame.at,
});

export class PicoContractEmulator implements ContractEmulator {
  private sessions = 0;

  private constructor(readonly pico: PicoServerEmulator) {}

  static async start(): Promise<PicoContractEmulator> {
    return new PicoContractEmulator(await PicoServerEmulator.start());
  }

  settings(): Record<string, unknown> {
    return { url: this.pico.url, token: this.pico.token };
  }

  secrets(): string[] {
    return [this.pico.token];
  }

  direct(name: string): Conversation {
    const session = `${name}-${++this.sessions}`;
    const said = async (type: string, payload: Record<string, unknown>): Promise<{ id: string }> => {
      const frame = await this.pico.push({ type, session_id: session, payload });
      return { id: frame.id };
    };
    return {
      sender: session,
      say: (text) => said('message.create', { content: text }),
      sendImage: (bytes, caption) =>
        said('media.create', { content: caption, media: [`data:image/png;base64,${bytes.toString('base64')}`] }),
      sendVoice: (bytes) =>
        said('message.create', {
          content: '',
          media: [
            {
              kind: 'audio',
              name: 'voice.ogg',
              mime: 'audio/ogg',
              bytes: bytes.length,
              url: `data:audio/ogg;base64,${bytes.toString('base64')}`,
            },
          ],
        }),
      redeliver: (said) => this.pico.repush(said.id),
      sent: () => this.pico.sentIn(session).map(asSent),
      typing: () => this.pico.typingIn(session).filter((t) => t === 'typing.start').length,
    };
  }

  rateLimitSends(): void {
    throw new Error('the Pico Protocol has no rate-limit answer');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.pico.outage(ms);
  }

  connections(): number {
    return this.pico.connections();
  }

  /** The protocol answers no `message.send`: what is held is the replies the server took meanwhile. */
  holdSendAnswers(): { held(): number; release(): void } {
    const before = this.pico.frames.filter((f) => f.type === 'message.send').length;
    return {
      held: () => this.pico.frames.filter((f) => f.type === 'message.send').length - before,
      release: () => undefined,
    };
  }

  close(): Promise<void> {
    return this.pico.close();
  }
}

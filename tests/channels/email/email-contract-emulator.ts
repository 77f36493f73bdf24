// The mail servers as the channel contract kit sees them: a user is an address that writes to the bot's mailbox
// (IMAP) and gets what the bot sends (SMTP). Each `say` starts a thread of its own.
import type { ContractEmulator, Conversation } from '../contract/emulator.js';
import { ImapServer } from '../../support/imap-server.js';
import { SmtpSink } from '../../support/smtp-sink.js';
import { compose } from './mail-users.js';

export const BOT = 'tern@example.test';

export class EmailContractEmulator implements ContractEmulator {
  private constructor(
    readonly imap: ImapServer,
    readonly smtp: SmtpSink,
  ) {}

  static async start(): Promise<EmailContractEmulator> {
    const password = 'imap-pass-5f3a9c';
    return new EmailContractEmulator(await ImapServer.start(BOT, password), await SmtpSink.start(BOT, password));
  }

  settings(): Record<string, unknown> {
    return {
      imap_server: '127.0.0.1',
      imap_port: this.imap.port,
      use_tls: false,
      username: BOT,
      password: this.imap.password,
      smtp_server: '127.0.0.1',
      smtp_port: this.smtp.port,
      smtp_use_tls: false,
    };
  }

  secrets(): string[] {
    return [this.imap.password];
  }

  direct(name: string): Conversation {
    const address = `${name}@example.test`;
    const raws = new Map<string, Buffer>();
    const send = async (mail: Parameters<typeof compose>[0]) => {
      const { raw, messageId } = await compose(mail);
      raws.set(messageId, raw);
      this.imap.append(raw);
      return { id: messageId };
    };
    return {
      sender: address,
      say: (text) => send({ from: address, to: BOT, subject: 'A question', text }),
      sendImage: (bytes, caption) =>
        send({
          from: address,
          to: BOT,
          text: caption,
          attachments: [{ filename: 'picture.png', content: bytes, contentType: 'image/png' }],
        }),
      sendVoice: (bytes) =>
        send({
          from: address,
          to: BOT,
          attachments: [{ filename: 'voice.ogg', content: bytes, contentType: 'audio/ogg' }],
        }),
      // The same mail in the mailbox again (a new UID, the same Message-ID), as a server does after a glitch.
      redeliver: async (said) => {
        this.imap.append(raws.get(said.id)!);
      },
      sent: () =>
        this.smtp.to(address).map((m) => ({
          id: m.messageId,
          text: m.text,
          edits: [],
          at: m.at,
          ...(m.attachments[0]
            ? { file: { name: m.attachments[0].name, bytes: m.attachments[0].bytes, caption: m.text } }
            : {}),
        })),
      typing: () => 0,
    };
  }

  rateLimitSends(): void {
    throw new Error('SMTP names no retry_after');
  }

  rateLimited(): number[] {
    return [];
  }

  outage(ms: number): Promise<void> {
    return this.imap.outage(ms);
  }

  connections(): number {
    return this.imap.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.smtp.holdAnswers();
  }

  async close(): Promise<void> {
    await this.imap.close();
    await this.smtp.close();
  }
}

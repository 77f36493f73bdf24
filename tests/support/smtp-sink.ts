// A real SMTP server on loopback (`smtp-server`) that takes what Tern sends and keeps each mail parsed: the
// addresses, the threading headers, the text and the attachments. It can defer or refuse the next mails (4xx, 5xx)
// and hold its answer to DATA, as a server does that dies before it confirms.
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SentMail {
  messageId: string;
  to: string[];
  from: string;
  subject: string;
  inReplyTo: string | undefined;
  references: string[];
  text: string;
  attachments: Array<{ name: string; bytes: Buffer; mime: string }>;
  at: number;
}

const list = (value: string | string[] | undefined): string[] => (Array.isArray(value) ? value : value ? [value] : []);

export class SmtpSink {
  readonly mails: SentMail[] = [];
  /** When each deferral or refusal was answered. */
  readonly failed: Array<{ code: number; at: number }> = [];
  private failures: number[] = [];
  private hold: { answers: Array<() => void>; on: boolean } | undefined;
  private server!: SMTPServer;

  private constructor(
    readonly user: string,
    readonly password: string,
  ) {}

  static async start(user: string, password: string): Promise<SmtpSink> {
    const sink = new SmtpSink(user, password);
    sink.server = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, _session, callback) => {
        if (auth.username === user && auth.password === password) callback(null, { user });
        else callback(Object.assign(new Error('Invalid login'), { responseCode: 535 }));
      },
      onData: (stream, _session, callback) => {
        void sink.take(stream, callback);
      },
    });
    await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  /** The next mails each get this SMTP reply code (451: try later; 550: refused). */
  failNext(...codes: number[]): void {
    this.failures.push(...codes);
  }

  /** From now on each mail is kept but its DATA answer held back until `release()`. */
  holdAnswers(): { held(): number; release(): void } {
    const hold = { answers: [] as Array<() => void>, on: true };
    this.hold = hold;
    return {
      held: () => hold.answers.length,
      release: () => {
        hold.on = false;
        for (const answer of hold.answers.splice(0)) answer();
      },
    };
  }

  to(address: string): SentMail[] {
    return this.mails.filter((m) => m.to.includes(address));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async take(stream: NodeJS.ReadableStream, callback: (error?: Error | null) => void): Promise<void> {
    const parsed = await simpleParser(stream as unknown as import('node:stream').Readable);
    const code = this.failures.shift();
    if (code !== undefined) {
      this.failed.push({ code, at: Date.now() });
      callback(
        Object.assign(new Error(code < 500 ? 'try again later' : 'mailbox unavailable'), { responseCode: code }),
      );
      return;
    }
    this.mails.push({
      messageId: parsed.messageId ?? '',
      to: (Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : []).flatMap((a) =>
        a.value.map((v) => v.address ?? ''),
      ),
      from: parsed.from?.value[0]?.address ?? '',
      subject: parsed.subject ?? '',
      inReplyTo: parsed.inReplyTo,
      references: list(parsed.references),
      text: (parsed.text ?? '').replace(/\n$/, ''),
      attachments: parsed.attachments.map((a) => ({ name: a.filename ?? '', bytes: a.content, mime: a.contentType })),
      at: Date.now(),
    });
    if (this.hold?.on) this.hold.answers.push(() => callback());
    else callback();
  }
}

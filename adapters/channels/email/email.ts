import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ImapFlow } from 'imapflow';
import type { ParsedMail } from 'mailparser';
import type { Transporter } from 'nodemailer';
import { CHAT_COMMANDS } from '../command-names.js';
import {
  ChannelError,
  NotKeptError,
  type Channel,
  type ChannelCapabilities,
  type ChannelHooks,
  type OutboundFile,
} from '../channel.js';
import { fromMail, parseReplyTo } from './inbound.js';
import { smtpError, imapError } from './errors.js';
import type { EmailState } from './state.js';

export interface EmailOptions {
  imap: { host: string; port: number; secure: boolean };
  smtp: { host: string; port: number; secure: boolean };
  user: string;
  password: string;
  /** The address replies come from. */
  from: string;
  mailbox: string;
  /** Poll this often (ms) instead of IMAP IDLE. */
  pollEveryMs?: number;
  maxAttachmentBytes: number;
  state: EmailState;
}

/** Mail has no length limit; past this a reply is cut into several mails, each still easy to read. */
export const EMAIL_MAX_LENGTH = 16_000;

const reSubject = (subject: string): string => `Re: ${subject.replace(/^(\s*(re|aw|sv)\s*:\s*)+/i, '').trim()}`;

/**
 * mailparser (with its HTML reducer and character sets, some megabytes) loads with the first mail, not with the
 * channel: a gateway whose mailbox stays quiet does without it.
 */
async function parseMail(source: Buffer): Promise<ParsedMail> {
  return (await import('mailparser')).simpleParser(source);
}

/** nodemailer, likewise, loads with the first mail out: a channel that has not answered yet holds no SMTP code. */
async function smtpTransport(options: EmailOptions): Promise<Transporter> {
  const { createTransport } = await import('nodemailer');
  return createTransport({
    host: options.smtp.host,
    port: options.smtp.port,
    secure: options.smtp.secure,
    auth: { user: options.user, pass: options.password },
    logger: false,
  });
}

/**
 * One mailbox: new mail arrives through IMAP IDLE (imapflow), replies leave through SMTP (nodemailer). Each thread
 * (Message-ID, In-Reply-To, References) is a session; a reply answers in its thread. The last UID taken is kept with
 * the mailbox's UIDVALIDITY, so a restart takes each mail once.
 */
export class EmailChannel implements Channel {
  readonly kind = 'email';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    edits: false,
    maxMessageLength: EMAIL_MAX_LENGTH,
  };
  private client: ImapFlow | undefined;
  /** The SMTP sender, made at the first mail out; undefined while the channel is stopped. */
  private transport: Promise<Transporter> | undefined;
  private running = false;
  private uidValidity = '';
  private lastUid = 0;
  private polling: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  /** Attachments of mail taken since the start, until the gateway fetched them. */
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly options: EmailOptions) {}

  async start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    const client = this.imapClient();
    client.on('error', () => undefined);
    await client.connect().catch((error: unknown) => {
      throw imapError(error, 'log in');
    });
    this.client = client;
    try {
      const mailbox = await client.mailboxOpen(this.options.mailbox);
      this.uidValidity = String(mailbox.uidValidity);
      this.lastUid = this.options.state.lastUid(this.uidValidity) ?? mailbox.uidNext - 1;
      this.options.state.taken(this.uidValidity, this.lastUid);
    } catch (error) {
      await client.logout().catch(() => undefined);
      throw imapError(error, `open the mailbox ${this.options.mailbox}`);
    }
    client.on('close', () => {
      if (this.stopping || this.client !== client) return;
      hooks.onFailed(new ChannelError('network', 'the IMAP connection closed'));
    });
    client.on('exists', () => this.poll(hooks));
    this.running = true;
    if (this.options.pollEveryMs) this.timer = setInterval(() => this.poll(hooks), this.options.pollEveryMs);
    // Mail that came while the channel was down.
    this.poll(hooks);
    hooks.onConnected();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    this.running = false;
    void this.transport?.then((transport) => transport.close()).catch(() => undefined);
    this.transport = undefined;
    if (client?.usable) await client.logout().catch(() => client.close());
    else client?.close();
  }

  async send(replyTo: string, text: string): Promise<string> {
    // Markdown was made to read as plain text mail: it goes out as written.
    return this.sendMail(replyTo, { text });
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'a sent mail cannot be edited');
  }

  /** The file attached to a mail whose text is the caption. */
  async sendFile(replyTo: string, file: OutboundFile): Promise<string> {
    const content = await readFile(file.path).catch((error: Error) => {
      throw new ChannelError('platform', `cannot read ${basename(file.path)} to send it (${error.message})`);
    });
    return this.sendMail(replyTo, {
      text: file.caption ?? '',
      attachments: [{ filename: basename(file.path), content, contentType: file.mime ?? 'application/octet-stream' }],
    });
  }

  async typing(): Promise<void> {}

  /** `<uid>:<index>`: held since the mail came, else the mail fetched again. */
  async download(fileId: string): Promise<Buffer> {
    const held = this.files.get(fileId);
    if (held) {
      this.files.delete(fileId);
      return held;
    }
    const [uid, index] = fileId.split(':').map(Number);
    const message = await this.client?.fetchOne(String(uid), { source: true }, { uid: true });
    const source = message ? message.source : undefined;
    const file = source ? (await parseMail(source)).attachments[index ?? -1] : undefined;
    if (!file) throw new ChannelError('platform', `the mail with UID ${uid} has no attachment ${index}`);
    return file.content;
  }

  private imapClient(): ImapFlow {
    return new ImapFlow({
      host: this.options.imap.host,
      port: this.options.imap.port,
      secure: this.options.imap.secure,
      auth: { user: this.options.user, pass: this.options.password },
      // Its logger writes every command: off, so no login line can reach a log.
      logger: false,
    });
  }

  /** One look for new mail at a time, in UID order. */
  private poll(hooks: ChannelHooks): void {
    this.polling = this.polling
      .then(() => this.takeNew(hooks))
      .catch((error: unknown) => {
        if (this.stopping || error instanceof NotKeptError) return;
        hooks.onFailed(imapError(error, 'fetch new mail'));
        this.client?.close();
      });
  }

  private async takeNew(hooks: ChannelHooks): Promise<void> {
    const client = this.client;
    if (!client?.usable || this.stopping) return;
    const from = this.lastUid + 1;
    const found = await client.fetchAll(`${from}:*`, { uid: true, source: true }, { uid: true });
    for (const mail of found.filter((m) => m.uid >= from).sort((a, b) => a.uid - b.uid)) {
      if (this.stopping || this.client !== client) return;
      const parsed = mail.source ? await parseMail(mail.source) : undefined;
      const state = this.options.state;
      const inbound = parsed
        ? fromMail(parsed, mail.uid, this.options.from, this.options.maxAttachmentBytes, (id) => state.thread(id))
        : undefined;
      if (inbound) {
        state.remember(inbound.messageId, inbound.thread, true);
        for (const [id, bytes] of inbound.files) this.files.set(id, bytes);
        // Kept in the event log before the UID counts as taken: a crash before that takes the mail again.
        await hooks.onMessage(inbound.message);
      }
      await client.messageFlagsAdd(String(mail.uid), ['\\Seen'], { uid: true }).catch(() => undefined);
      this.lastUid = mail.uid;
      state.taken(this.uidValidity, mail.uid);
    }
  }

  private async sendMail(
    replyTo: string,
    content: { text: string; attachments?: Array<{ filename: string; content: Buffer; contentType: string }> },
  ): Promise<string> {
    if (!this.running)
      throw new ChannelError('network', 'the channel is not started', { delivered: 'no', retry: true });
    this.transport ??= smtpTransport(this.options);
    const transport = await this.transport;
    const { address, root } = parseReplyTo(replyTo);
    const answers = root ? (this.options.state.latest(root) ?? root) : undefined;
    const thread = answers ? this.options.state.thread(answers) : undefined;
    const references = thread?.references ?? (answers ? [answers] : []);
    const domain = this.options.from.slice(this.options.from.lastIndexOf('@') + 1);
    const messageId = `<${randomUUID()}@${domain}>`;
    const subject = reSubject(thread?.subject || '(no subject)');
    await transport
      .sendMail({
        from: this.options.from,
        to: address,
        subject,
        messageId,
        ...(answers ? { inReplyTo: answers, references } : {}),
        ...content,
      })
      .catch((error: unknown) => {
        throw smtpError(error);
      });
    this.options.state.remember(
      messageId,
      { root: thread?.root ?? answers ?? messageId, subject, references: [...references, messageId] },
      false,
    );
    return messageId;
  }
}

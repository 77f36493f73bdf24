// The mail people send the bot, written as a mail client writes it (nodemailer's composer), delivered into the
// loopback IMAP server's INBOX.
import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { ImapServer } from '../../support/imap-server.js';

export interface OutgoingMail {
  from: string;
  to: string;
  subject?: string;
  text?: string;
  html?: string;
  inReplyTo?: string;
  references?: string[];
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
  messageId?: string;
}

export function compose(mail: OutgoingMail): Promise<{ raw: Buffer; messageId: string }> {
  const messageId = mail.messageId ?? `<${randomUUID()}@example.test>`;
  const composer = new MailComposer({ subject: 'Hello', ...mail, messageId });
  return new Promise((resolve, reject) =>
    composer.compile().build((error, raw) => (error ? reject(error) : resolve({ raw, messageId }))),
  );
}

/** Delivers the mail; resolves with its Message-ID and UID. */
export async function deliver(imap: ImapServer, mail: OutgoingMail): Promise<{ messageId: string; uid: number }> {
  const { raw, messageId } = await compose(mail);
  return { messageId, uid: imap.append(raw) };
}

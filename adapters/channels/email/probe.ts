import { ImapFlow } from 'imapflow';
import { createTransport } from 'nodemailer';
import { imapError, smtpError } from './errors.js';
import type { EmailSettings } from './settings.js';

/**
 * `tern doctor`'s check: an IMAP login and an SMTP login (nodemailer's `verify`), each on a connection of its own. It
 * opens no mailbox, so it takes no mail from the running gateway.
 */
export async function probeEmail(settings: EmailSettings): Promise<string> {
  const auth = { user: settings.username, pass: settings.password };
  const imap = new ImapFlow({
    host: settings.imap_server,
    port: settings.imap_port ?? (settings.use_tls ? 993 : 143),
    secure: settings.use_tls,
    auth,
    logger: false,
  });
  imap.on('error', () => undefined);
  await imap.connect().catch((error: unknown) => {
    throw imapError(error, 'log in');
  });
  await imap.logout().catch(() => imap.close());
  const smtp = createTransport({
    host: settings.smtp_server,
    port: settings.smtp_port ?? (settings.smtp_use_tls ? 465 : 587),
    secure: settings.smtp_use_tls,
    auth,
    logger: false,
  });
  try {
    await smtp.verify().catch((error: unknown) => {
      throw smtpError(error);
    });
  } finally {
    smtp.close();
  }
  return 'IMAP and SMTP logins accepted';
}

import * as z from 'zod/mini';
import { bool, secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** An Email entry's settings, named as the peer runtime names them (`docs/channels/email.md`). */
export const emailSettings = z.looseObject({
  imap_server: described(text(), 'IMAP host that receives the mail, e.g. imap.gmail.com'),
  imap_port: described(z.number(), 'IMAP port (default 993 with use_tls, else 143)'),
  use_tls: described(bool(), 'IMAP over TLS (default true)'),
  username: described(text(), 'Login of the mailbox, usually its address'),
  password: described(secret(), 'Password of the mailbox (an app password where the provider asks for one)'),
  mailbox: described(text(), 'Folder watched (default INBOX)'),
  from: described(text(), "Sender address of Tern's replies (default: username)"),
  smtp_server: described(text(), 'SMTP host that sends the replies, e.g. smtp.gmail.com'),
  smtp_port: described(z.number(), 'SMTP port (default 465 with smtp_use_tls, else 587)'),
  smtp_use_tls: described(bool(), 'SMTP over TLS from the start (port 465); false: STARTTLS when offered'),
  check_interval: described(z.number(), 'Seconds between checks with forced_polling (default 30)'),
  forced_polling: described(bool(), 'Poll every check_interval instead of IMAP IDLE'),
  attachment_max_bytes: described(z.number(), 'Largest attachment taken in (default 25 MB)'),
});

import * as z from 'zod';
import { reasoningChannelId, requiredText } from '../settings-of.js';

/** The peer runtime writes `""` or `0` for a field it leaves unset. */
const unset = (value: unknown): unknown => (value === '' || value === 0 ? undefined : value);
const port = (description: string) =>
  z.preprocess(unset, z.number().int().min(1).max(65535).optional()).describe(description);
const host = (description: string) =>
  requiredText(description).regex(/^[^\s:/]+$/, 'must be a host name without port or scheme, e.g. imap.example.com');

/** `channel_list.<name>.settings` of an Email channel, with the peer runtime's field names. */
export const emailSettingsSchema = z.looseObject({
  imap_server: host('IMAP host that receives the mail, e.g. imap.gmail.com'),
  imap_port: port('IMAP port (default 993 with use_tls, else 143)'),
  use_tls: z.boolean().default(true).describe('IMAP over TLS (default true)'),
  username: requiredText('Login of the mailbox, usually its address'),
  password: requiredText('Password of the mailbox, an app password where the provider asks for one (secret)'),
  mailbox: z.preprocess(unset, z.string().trim().min(1).default('INBOX')).describe('Folder watched (default INBOX)'),
  from: z
    .preprocess(unset, z.email('must be an e-mail address').optional())
    .describe("Sender address of Tern's replies (default: username)"),
  smtp_server: host('SMTP host that sends the replies, e.g. smtp.gmail.com'),
  smtp_port: port('SMTP port (default 465 with smtp_use_tls, else 587)'),
  smtp_use_tls: z
    .boolean()
    .default(true)
    .describe('SMTP over TLS from the start (port 465); false: STARTTLS if offered'),
  check_interval: z
    .preprocess(unset, z.number().int().min(5).default(30))
    .describe('Seconds between checks with forced_polling (default 30)'),
  forced_polling: z.boolean().default(false).describe('Poll every check_interval instead of IMAP IDLE'),
  attachment_max_bytes: z
    .preprocess(
      unset,
      z
        .number()
        .int()
        .min(1)
        .default(25 * 1024 * 1024),
    )
    .describe('Largest attachment taken in (default 25 MB); larger ones are named, not saved'),
  reasoning_channel_id: reasoningChannelId(),
});

export type EmailSettings = z.output<typeof emailSettingsSchema>;

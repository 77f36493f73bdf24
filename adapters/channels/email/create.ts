import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ChannelEntry } from '../../../store/config/index.js';
import { ChannelError, type Channel } from '../channel.js';
import { refuseProxy, settingsOf } from '../settings-of.js';
import { emailSettingsSchema } from './settings.js';

/** An Email channel for one `channel_list` entry; imapflow, mailparser and nodemailer load only then. */
export async function createEmailChannel(name: string, entry: ChannelEntry): Promise<Channel> {
  refuseProxy(name, entry, 'IMAP and SMTP connect directly');
  const settings = settingsOf(name, entry, emailSettingsSchema);
  const from = settings.from ?? settings.username;
  if (!/^[^\s@]+@[^\s@]+$/.test(from))
    throw new ChannelError('bad_settings', `channel_list.${name}.settings.from: set the address replies come from`);
  const [{ EmailChannel }, { EmailState }] = await Promise.all([import('./email.js'), import('./state.js')]);
  const home = process.env.AGENT_HOME || join(homedir(), '.agent');
  return new EmailChannel({
    imap: {
      host: settings.imap_server,
      port: settings.imap_port ?? (settings.use_tls ? 993 : 143),
      secure: settings.use_tls,
    },
    smtp: {
      host: settings.smtp_server,
      port: settings.smtp_port ?? (settings.smtp_use_tls ? 465 : 587),
      secure: settings.smtp_use_tls,
    },
    user: settings.username,
    password: settings.password,
    from,
    mailbox: settings.mailbox,
    ...(settings.forced_polling ? { pollEveryMs: settings.check_interval * 1000 } : {}),
    maxAttachmentBytes: settings.attachment_max_bytes,
    state: new EmailState(join(home, 'email', name, 'state.json')),
  });
}

// `tern onboard`'s flags for the channels set up by more than a token: Feishu / Lark, DingTalk, WeCom, QQ, OneBot,
// Pico (server and client), IRC, Signal, Mattermost, Email, LINE and WhatsApp (the last two in their own file).
// Secrets go to .security.yml, the rest to config.json, under the peer runtime's field names.
import type { SetupChannel } from '../../store/config/first-setup.js';
import type { OptionSpec, OptionValues } from './command.js';
import { UsageError } from './errors.js';
import { LINE_WHATSAPP_OPTIONS, lineWhatsAppFromFlags } from './onboard-line-whatsapp.js';

export const CHANNEL_SETUP_OPTIONS = {
  'feishu-app-id': {
    type: 'string',
    value: 'ID',
    description: "add an enabled Feishu / Lark channel: the app's App ID (cli_…)",
  },
  'feishu-app-secret': { type: 'string', value: 'SECRET', description: 'and its App Secret' },
  'feishu-lark': { type: 'boolean', description: 'the app is on Lark (open.larksuite.com), not Feishu' },
  'dingtalk-client-id': {
    type: 'string',
    value: 'ID',
    description: 'add an enabled DingTalk channel (Stream mode): Client ID',
  },
  'dingtalk-client-secret': { type: 'string', value: 'SECRET', description: 'and its Client Secret' },
  'wecom-bot-id': {
    type: 'string',
    value: 'ID',
    description: 'add an enabled WeCom intelligent bot channel: its Bot ID',
  },
  'wecom-secret': { type: 'string', value: 'SECRET', description: 'and its Secret' },
  'qq-app-id': { type: 'string', value: 'ID', description: 'add an enabled QQ official bot channel: its AppID' },
  'qq-app-secret': { type: 'string', value: 'SECRET', description: 'and its AppSecret' },
  'onebot-url': {
    type: 'string',
    value: 'URL',
    description: 'add an enabled OneBot v11 channel: the forward WebSocket (ws://…)',
  },
  'onebot-token': { type: 'string', value: 'TOKEN', description: 'and its access token, when one is set' },
  'pico-token': {
    type: 'string',
    value: 'TOKEN',
    description: 'add an enabled Pico channel, `tern gateway` at /pico/ws: the token its clients show',
  },
  'pico-client-url': {
    type: 'string',
    value: 'URL',
    description: 'add an enabled Pico client channel: the remote Pico server (wss://…/pico/ws)',
  },
  'pico-client-token': { type: 'string', value: 'TOKEN', description: 'and the token it asks for, if any' },
  'irc-server': {
    type: 'string',
    value: 'HOST:PORT',
    description: 'add an enabled IRC channel: the server (e.g. irc.libera.chat:6697), with --irc-nick',
  },
  'irc-nick': { type: 'string', value: 'NICK', description: "and the bot's nickname" },
  'irc-channels': { type: 'string', value: '#A,#B', description: 'and the channels it joins' },
  'irc-password': { type: 'string', value: 'PASSWORD', description: 'and its server password (PASS), if any' },
  'irc-no-tls': { type: 'boolean', description: 'and connect without TLS (default: TLS)' },
  'signal-account': {
    type: 'string',
    value: '+NUMBER',
    description: "add an enabled Signal channel: the account signal-cli's daemon runs",
  },
  'signal-daemon': {
    type: 'string',
    value: 'HOST:PORT',
    description: 'and its JSON-RPC address (default 127.0.0.1:7583)',
  },
  'mattermost-url': {
    type: 'string',
    value: 'URL',
    description: 'add an enabled Mattermost channel: the server (https://chat.example.com), with --mattermost-token',
  },
  'mattermost-token': { type: 'string', value: 'TOKEN', description: "and the bot account's access token" },
  'email-address': {
    type: 'string',
    value: 'ADDRESS',
    description: 'add an enabled Email channel: the mailbox address (its login), with the three flags below',
  },
  'email-password': { type: 'string', value: 'PASSWORD', description: 'and its (app) password' },
  'email-imap': { type: 'string', value: 'HOST[:PORT]', description: 'and its IMAP server over TLS (port 993)' },
  'email-smtp': { type: 'string', value: 'HOST[:PORT]', description: 'and its SMTP server over TLS (port 465)' },
  ...LINE_WHATSAPP_OPTIONS,
} as const satisfies Record<string, OptionSpec>;

export const CHANNEL_SETUP_FLAGS = Object.keys(CHANNEL_SETUP_OPTIONS) as Array<keyof typeof CHANNEL_SETUP_OPTIONS>;

const str = (values: OptionValues, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/** A pair of flags that only work together: both given, neither, or a usage error naming the missing one. */
function pair(values: OptionValues, platform: string, id: string, secret: string): [string, string] | undefined {
  const [a, b] = [str(values, id), str(values, secret)];
  if (!a && !b) return undefined;
  if (!a || !b) throw new UsageError(`${platform} needs both --${id} and --${secret}`);
  return [a, b];
}

/** The channels these flags ask for. */
export function channelsFromFlags(values: OptionValues): SetupChannel[] {
  const channels: SetupChannel[] = [];
  const feishu = pair(values, 'Feishu', 'feishu-app-id', 'feishu-app-secret');
  if (feishu) {
    channels.push({
      name: 'feishu',
      settings: { app_id: feishu[0], ...(values['feishu-lark'] === true ? { is_lark: true } : {}) },
      secrets: { app_secret: feishu[1] },
    });
  } else if (values['feishu-lark'] === true)
    throw new UsageError('--feishu-lark needs --feishu-app-id and --feishu-app-secret');
  const dingtalk = pair(values, 'DingTalk', 'dingtalk-client-id', 'dingtalk-client-secret');
  if (dingtalk)
    channels.push({ name: 'dingtalk', settings: { client_id: dingtalk[0] }, secrets: { client_secret: dingtalk[1] } });
  const wecom = pair(values, 'WeCom', 'wecom-bot-id', 'wecom-secret');
  if (wecom) channels.push({ name: 'wecom', settings: { bot_id: wecom[0] }, secrets: { secret: wecom[1] } });
  const qq = pair(values, 'QQ', 'qq-app-id', 'qq-app-secret');
  if (qq) channels.push({ name: 'qq', settings: { app_id: qq[0] }, secrets: { app_secret: qq[1] } });
  const onebotUrl = str(values, 'onebot-url');
  const onebotToken = str(values, 'onebot-token');
  if (onebotUrl) {
    channels.push({
      name: 'onebot',
      settings: { ws_url: onebotUrl },
      secrets: onebotToken ? { access_token: onebotToken } : {},
    });
  } else if (onebotToken) throw new UsageError('--onebot-token needs --onebot-url');
  const picoServerToken = str(values, 'pico-token');
  if (picoServerToken) channels.push({ name: 'pico', secrets: { token: picoServerToken } });
  const picoUrl = str(values, 'pico-client-url');
  const picoToken = str(values, 'pico-client-token');
  if (picoUrl)
    channels.push({ name: 'pico_client', settings: { url: picoUrl }, secrets: picoToken ? { token: picoToken } : {} });
  else if (picoToken) throw new UsageError('--pico-client-token needs --pico-client-url');
  const irc = ircFromFlags(values);
  if (irc) channels.push(irc);
  const signal = str(values, 'signal-account');
  const daemon = str(values, 'signal-daemon');
  if (signal) {
    const settings = { account: signal, ...(daemon ? { daemon_address: daemon } : {}) };
    channels.push({ name: 'signal', settings, secrets: {} });
  } else if (daemon) throw new UsageError('--signal-daemon needs --signal-account');
  const mattermost = pair(values, 'Mattermost', 'mattermost-url', 'mattermost-token');
  if (mattermost)
    channels.push({ name: 'mattermost', settings: { server_url: mattermost[0] }, secrets: { token: mattermost[1] } });
  const email = emailFromFlags(values);
  if (email) channels.push(email);
  channels.push(...lineWhatsAppFromFlags(values));
  return channels;
}

const EMAIL_FLAGS = ['email-address', 'email-password', 'email-imap', 'email-smtp'] as const;

/** The four Email flags go together; a port after the host is kept, else the TLS port applies. */
function emailFromFlags(values: OptionValues): SetupChannel | undefined {
  const given = EMAIL_FLAGS.filter((flag) => str(values, flag));
  if (given.length === 0) return undefined;
  const missing = EMAIL_FLAGS.filter((flag) => !str(values, flag));
  if (missing.length > 0) throw new UsageError(`Email needs ${EMAIL_FLAGS.map((f) => `--${f}`).join(', ')}`);
  const server = (flag: string, prefix: string): Record<string, string | number> => {
    const [host = '', port] = str(values, flag)!.split(':');
    return { [`${prefix}_server`]: host, ...(port ? { [`${prefix}_port`]: Number(port) } : {}) };
  };
  return {
    name: 'email',
    settings: {
      username: str(values, 'email-address')!,
      ...server('email-imap', 'imap'),
      ...server('email-smtp', 'smtp'),
    },
    secrets: { password: str(values, 'email-password')! },
  };
}

function ircFromFlags(values: OptionValues): SetupChannel | undefined {
  const server = str(values, 'irc-server');
  const nick = str(values, 'irc-nick');
  const extras = ['irc-channels', 'irc-password'].filter((flag) => str(values, flag));
  if (values['irc-no-tls'] === true) extras.push('irc-no-tls');
  if (!server && !nick) {
    if (extras.length > 0) throw new UsageError(`--${extras[0]} needs --irc-server and --irc-nick`);
    return undefined;
  }
  if (!server || !nick) throw new UsageError('IRC needs both --irc-server and --irc-nick');
  const list = (str(values, 'irc-channels') ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const password = str(values, 'irc-password');
  return {
    name: 'irc',
    settings: { server, nick, tls: values['irc-no-tls'] !== true, ...(list.length > 0 ? { channels: list } : {}) },
    secrets: password ? { password } : {},
  };
}

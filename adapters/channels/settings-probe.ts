// `tern doctor`'s one authenticated call for the channels whose credentials are settings other than a `token`
// (Feishu, DingTalk, QQ, OneBot, Pico client, WeCom, LINE, WhatsApp and others). None opens the event connection the
// gateway holds where a platform hands each event to one connection only: a probe there could take a user's message and
// drop it.
import { fetchOn } from '../http/client.js';
import { isSecret, type ChannelEntry } from '../../store/config/index.js';
import { ChannelError } from './channel.js';
import type { ProbeResult } from './probe.js';
import { settingsOf } from './settings-of.js';

const TIMEOUT_MS = 10_000;
const LINE_API = 'https://api.line.me';

async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  proxy?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  // Out as the channel goes: its `proxy`, else the environment's.
  const response = await fetchOn(proxy ? { proxy } : {})(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: {} };
  }
}

/** Feishu's code and message of a refusal, or the HTTP status. */
const refusal = (answer: { status: number; body: Record<string, unknown> }): string =>
  `${String(answer.body.code ?? answer.status)} ${String(answer.body.msg ?? '')}`.trim();

async function feishu(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const [{ feishuSettingsSchema }, { feishuDomain }] = await Promise.all([
    import('./feishu/settings.js'),
    import('./feishu/create.js'),
  ]);
  const settings = settingsOf(name, entry, feishuSettingsSchema);
  const root = feishuDomain(settings);
  const proxy = entry.settings.proxy;
  const token = await postJson(
    `${root}/open-apis/auth/v3/tenant_access_token/internal`,
    { app_id: settings.app_id, app_secret: settings.app_secret },
    {},
    proxy,
  );
  if (typeof token.body.tenant_access_token !== 'string') {
    return {
      ok: false,
      detail: `the App ID and Secret were refused (${refusal(token)})`,
    };
  }
  const info = await postJson(
    `${root}/open-apis/bot/v3/info`,
    undefined,
    { authorization: `Bearer ${token.body.tenant_access_token}` },
    proxy,
  );
  const bot = info.body.bot as { app_name?: string } | undefined;
  if (info.body.code !== 0 || !bot)
    return {
      ok: false,
      detail: `the bot info was refused (${refusal(info)})`,
    };
  return { ok: true, detail: `reachable as ${bot.app_name ?? '?'}` };
}

async function dingtalk(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const [{ dingtalkSettingsSchema }, { DingTalkApi }, { dingtalkEndpoints }] = await Promise.all([
    import('./dingtalk/settings.js'),
    import('./dingtalk/dingtalk-api.js'),
    import('./dingtalk/create.js'),
  ]);
  const settings = settingsOf(name, entry, dingtalkSettingsSchema);
  const api = new DingTalkApi({
    clientId: settings.client_id,
    clientSecret: settings.client_secret,
    ...dingtalkEndpoints(settings),
  });
  await api.accessToken();
  return { ok: true, detail: `the Client ID and Secret are accepted (app ${settings.client_id})` };
}

async function qq(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const [{ qqSettingsSchema }, { QqApi }, { qqEndpoints }] = await Promise.all([
    import('./qq/settings.js'),
    import('./qq/qq-api.js'),
    import('./qq/create.js'),
  ]);
  const settings = settingsOf(name, entry, qqSettingsSchema);
  const me = await new QqApi({ appId: settings.app_id, appSecret: settings.app_secret, ...qqEndpoints(settings) }).call(
    'GET',
    '/users/@me',
  );
  return { ok: true, detail: `reachable as ${String(me.username ?? '?')}` };
}

/** OneBot implementations send every event to every connection: a second, short one takes nothing from the gateway. */
async function onebot(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const { createOneBotChannel } = await import('./onebot/create.js');
  const channel = await createOneBotChannel(name, entry);
  try {
    await channel.start({ onMessage: () => {}, onConnected: () => {}, onFailed: () => {} });
  } finally {
    await channel.stop();
  }
  return { ok: true, detail: 'connected and logged in (get_login_info answered)' };
}

/** A Pico server takes the token at the handshake; the short connection names no session, so it is sent nothing. */
async function picoClient(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const { createPicoClientChannel } = await import('./pico/create.js');
  const channel = await createPicoClientChannel(name, entry);
  try {
    await channel.start({ onMessage: () => {}, onConnected: () => {}, onFailed: () => {} });
  } finally {
    await channel.stop();
  }
  return { ok: true, detail: 'connected (the server took the token)' };
}

/** An IRC login (PASS or SASL) on a connection of its own; the nick is taken, the server gives it a `_` more. */
async function irc(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const { createIrcChannel } = await import('./irc/create.js');
  const channel = await createIrcChannel(name, entry);
  try {
    await channel.start({ onMessage: () => {}, onConnected: () => {}, onFailed: () => {} });
  } finally {
    await channel.stop();
  }
  return { ok: true, detail: 'connected and logged in (the server welcomed the bot)' };
}

/** signal-cli hands each message to every connected client: a short second connection takes nothing. */
async function signal(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const { createSignalChannel } = await import('./signal/create.js');
  const channel = await createSignalChannel(name, entry);
  try {
    await channel.start({ onMessage: () => {}, onConnected: () => {}, onFailed: () => {} });
  } finally {
    await channel.stop();
  }
  return { ok: true, detail: 'signal-cli runs the account (listAccounts answered)' };
}

/** Mattermost's `users/me` with the bot's token: the REST call only, no WebSocket. */
async function mattermost(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const [{ mattermostSettingsSchema }, { loadClient4 }] = await Promise.all([
    import('./mattermost/settings.js'),
    import('./mattermost/client4.js'),
  ]);
  const Client4 = await loadClient4();
  const settings = settingsOf(name, entry, mattermostSettingsSchema);
  const client = new Client4();
  client.setUrl(settings.server_url.replace(/\/+$/, ''));
  client.setToken(settings.token);
  const me = await client.getMe().catch((error: { status_code?: number; message?: string }) => {
    throw new ChannelError('unauthorized', `users/me was refused (${error.status_code ?? error.message})`);
  });
  return { ok: true, detail: `reachable as @${me.username}` };
}

/** LINE: the bot's info with the channel access token, the call the channel makes at start. */
async function line(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const settings = entry.settings as Record<string, unknown>;
  const token = isSecret(settings.channel_access_token) ? settings.channel_access_token.reveal() : '';
  if (token === '')
    throw new ChannelError('bad_settings', `channel_list.${name}.settings.channel_access_token is missing`);
  const base = typeof settings.base_url === 'string' && settings.base_url !== '' ? settings.base_url : LINE_API;
  const answer = await postJson(`${base.replace(/\/+$/, '')}/v2/bot/info`, undefined, {
    authorization: `Bearer ${token}`,
  });
  if (answer.status !== 200) {
    const why = `${answer.status} ${String(answer.body.message ?? '')}`.trim();
    throw new ChannelError(answer.status === 401 ? 'unauthorized' : 'platform', `bot info was refused (${why})`);
  }
  return { ok: true, detail: `reachable as ${String(answer.body.displayName)} (${String(answer.body.basicId)})` };
}

/** WhatsApp's check is in its own file: three modes, three checks. */
async function whatsapp(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  return (await import('./whatsapp-probe.js')).whatsapp(name, entry);
}

/** An IMAP login and an SMTP login; no mailbox is opened, so no mail is taken from the gateway. */
async function email(name: string, entry: ChannelEntry): Promise<ProbeResult> {
  const [{ emailSettingsSchema }, { probeEmail }] = await Promise.all([
    import('./email/settings.js'),
    import('./email/probe.js'),
  ]);
  return { ok: true, detail: await probeEmail(settingsOf(name, entry, emailSettingsSchema)) };
}

/**
 * Whether a channel of this kind can start with its settings, by one authenticated call; undefined for a kind not
 * probed here. A WeCom bot has one long connection: a probe's would displace the running gateway's, so it is skipped.
 */
export function probeSettings(
  kind: string,
  name: string,
  entry: ChannelEntry,
): Promise<ProbeResult | 'skipped'> | undefined {
  const probes: Record<string, (n: string, e: ChannelEntry) => Promise<ProbeResult>> = {
    feishu,
    dingtalk,
    qq,
    onebot,
    pico_client: picoClient,
    irc,
    signal,
    mattermost,
    email,
    line,
    whatsapp,
  };
  if (kind === 'wecom') return Promise.resolve('skipped');
  const probe = probes[kind];
  if (!probe) return undefined;
  return probe(name, entry).catch((error: unknown): ProbeResult => {
    if (error instanceof ChannelError) return { ok: false, detail: error.message };
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const timedOut = (error as Error).name === 'TimeoutError';
    const why = cause ?? (timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : (error as Error).message);
    return { ok: false, detail: `unreachable (${why})` };
  });
}

// One cheap authenticated call per platform, to say whether a channel can start: the token is accepted and the
// platform answers. Nothing is sent to any chat. Messages never hold the token (Telegram's is in the URL).

export type ProbeResult = { ok: true; detail: string } | { ok: false; detail: string };

export interface ProbeSettings {
  token: string;
  /** Slack's app-level token (Socket Mode). */
  appToken?: string;
  /** Telegram's Bot API root (an emulator, a proxy). */
  baseUrl?: string;
  /** The channel's `settings.proxy`, which its own calls go through; absent, the environment's proxy. */
  proxy?: string;
}

const TIMEOUT_MS = 10_000;

/** The kinds this gateway runs and can probe. */
export const PROBED_KINDS = ['telegram', 'discord', 'slack', 'matrix'] as const;

type Answer = { status: number; body: Record<string, unknown> } | { error: string };

async function answer(url: string, init: RequestInit, proxy: string | undefined): Promise<Answer> {
  try {
    // Out as the channel goes (its `proxy`, else the environment's HTTPS_PROXY), so the probe says what the gateway
    // will meet.
    const { fetchOn } = await import('../http/client.js');
    const response = await fetchOn(proxy ? { proxy } : {})(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON: the status says enough.
    }
    return { status: response.status, body };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      error:
        cause ??
        ((error as Error).name === 'TimeoutError'
          ? `no answer within ${TIMEOUT_MS / 1000} s`
          : (error as Error).message),
    };
  }
}

function refused(status: number, description: unknown): ProbeResult {
  return {
    ok: false,
    detail: `the token was refused (${status}${typeof description === 'string' ? ` ${description}` : ''})`,
  };
}

async function telegram(settings: ProbeSettings): Promise<ProbeResult> {
  const root = (settings.baseUrl || 'https://api.telegram.org').replace(/\/+$/, '');
  const got = await answer(`${root}/bot${settings.token}/getMe`, { method: 'GET' }, settings.proxy);
  if ('error' in got) return { ok: false, detail: `unreachable (${got.error})` };
  const result = got.body.result as { username?: string } | undefined;
  if (got.status === 200 && got.body.ok === true)
    return { ok: true, detail: `reachable as @${result?.username ?? '?'}` };
  return refused(got.status, got.body.description);
}

async function discord(settings: ProbeSettings): Promise<ProbeResult> {
  const got = await answer(
    'https://discord.com/api/v10/users/@me',
    { headers: { authorization: `Bot ${settings.token}` } },
    settings.proxy,
  );
  if ('error' in got) return { ok: false, detail: `unreachable (${got.error})` };
  if (got.status === 200) return { ok: true, detail: `reachable as ${String(got.body.username ?? '?')}` };
  return refused(got.status, got.body.message);
}

async function slack(settings: ProbeSettings): Promise<ProbeResult> {
  const bot = await answer(
    'https://slack.com/api/auth.test',
    { method: 'POST', headers: { authorization: `Bearer ${settings.token}` } },
    settings.proxy,
  );
  if ('error' in bot) return { ok: false, detail: `unreachable (${bot.error})` };
  if (bot.body.ok !== true) return refused(bot.status, bot.body.error);
  if (!settings.appToken)
    return { ok: false, detail: 'the bot token works; the app-level token (app_token) is missing' };
  const app = await answer(
    'https://slack.com/api/apps.connections.open',
    { method: 'POST', headers: { authorization: `Bearer ${settings.appToken}` } },
    settings.proxy,
  );
  if ('error' in app) return { ok: false, detail: `unreachable (${app.error})` };
  if (app.body.ok !== true)
    return { ok: false, detail: `the app-level token was refused (${String(app.body.error ?? app.status)})` };
  return { ok: true, detail: `reachable as ${String(bot.body.user ?? '?')} in ${String(bot.body.team ?? '?')}` };
}

/** Matrix: `whoami` with the access token, at the homeserver (`baseUrl`). */
async function matrix(settings: ProbeSettings): Promise<ProbeResult> {
  if (!settings.baseUrl) return { ok: false, detail: 'the homeserver is not set' };
  const got = await answer(
    `${settings.baseUrl.replace(/\/+$/, '')}/_matrix/client/v3/account/whoami`,
    { headers: { authorization: `Bearer ${settings.token}` } },
    settings.proxy,
  );
  if ('error' in got) return { ok: false, detail: `unreachable (${got.error})` };
  if (got.status === 200) return { ok: true, detail: `reachable as ${String(got.body.user_id ?? '?')}` };
  return refused(got.status, got.body.errcode);
}

/** Whether a channel of this kind can start with these settings; an unknown kind is not probed (undefined). */
export function probeChannel(kind: string, settings: ProbeSettings): Promise<ProbeResult> | undefined {
  switch (kind) {
    case 'telegram':
      return telegram(settings);
    case 'discord':
      return discord(settings);
    case 'slack':
      return slack(settings);
    case 'matrix':
      return matrix(settings);
    default:
      return undefined;
  }
}

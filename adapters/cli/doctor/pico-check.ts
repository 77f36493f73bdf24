// `tern doctor`'s check of a `pico` entry, a Pico Protocol server on the gateway's own HTTP server: there is no
// platform to ask, so it looks at what a client meets: the token, and how `/pico/ws` answers with and without it.
import { ChannelError } from '../../channels/channel.js';
import { PICO_WS_PATH } from '../../channels/pico/path.js';
import { portTakeable, upgradeAnswer, type UpgradeAnswer } from '../../channels/pico/probe.js';
import { picoServerSettingsSchema } from '../../channels/pico/settings.js';
import { settingsOf } from '../../channels/settings-of.js';
import { isSecret, type ChannelEntry, type Config } from '../../../store/config/index.js';
import { healthUrl } from '../gateway-health.js';
import { check, type Check } from './check.js';

/** Shorter than this, a token is a guess away: whoever holds it runs the agent. */
const LONG_ENOUGH = 16;
const MAKE_ONE = 'a long random one, e.g. `openssl rand -hex 32`';

const answered = (answer: UpgradeAnswer): string =>
  answer.kind === 'socket'
    ? 'a socket'
    : answer.kind === 'status'
      ? `HTTP ${answer.status}${answer.text ? ` ${answer.text}` : ''}`
      : answer.code;

/** How the gateway's `/pico/ws` answers now: a token holder let in and anyone else refused, or no gateway at all. */
async function served(name: string, token: string, config: Config): Promise<Check> {
  const label = `channel ${name}`;
  const url = healthUrl(config)
    .replace(/^http/, 'ws')
    .replace(/\/health$/, PICO_WS_PATH);
  const stranger = await upgradeAnswer(url);
  if (stranger.kind === 'unreachable' && stranger.code === 'ECONNREFUSED') {
    const { host, port } = config.gateway;
    const bind = await portTakeable(host, port);
    if (bind.ok) return check(label, 'ok', `no gateway runs; port ${port} is free for ${url}`);
    return check(label, 'error', `nothing answers at ${url}, and port ${port} cannot be listened on (${bind.code})`, {
      fix: 'set gateway.host and gateway.port to an address of this machine that is free',
    });
  }
  if (stranger.kind !== 'status' || stranger.status !== 401)
    return check(label, 'error', `${url} answered a client without the token with ${answered(stranger)}, not 401`, {
      fix: '`tern status` shows whether the gateway on that port runs this entry',
    });
  const holder = await upgradeAnswer(url, token);
  if (holder.kind === 'socket')
    return check(label, 'ok', `the running gateway takes the token at ${url} (without it: 401)`);
  return check(label, 'error', `the running gateway at ${url} refused the token (${answered(holder)})`, {
    fix: 'the gateway on that port runs another config: another AGENT_HOME, or gateway.hot_reload is off (restart it)',
  });
}

export async function picoCheck(name: string, entry: ChannelEntry, config: Config): Promise<Check> {
  const label = `channel ${name}`;
  const given = entry.settings.token;
  if (!(isSecret(given) ? given.reveal() : given))
    return check(label, 'warn', '`tern gateway` cannot serve it without a token', {
      fix:
        `set channel_list.${name}.settings.token (in .security.yml): ${MAKE_ONE}; ` +
        "tern-launcher's Chat page needs none",
    });
  let token: string;
  try {
    token = settingsOf(name, entry, picoServerSettingsSchema).token;
  } catch (error) {
    if (error instanceof ChannelError) return check(label, 'error', error.message);
    throw error;
  }
  const live = await served(name, token, config);
  if (live.status === 'error' || token.length >= LONG_ENOUGH) return live;
  return check(label, 'warn', `the token is ${token.length} characters: a short one can be guessed`, {
    details: [live.message],
    fix: `use ${MAKE_ONE}`,
  });
}

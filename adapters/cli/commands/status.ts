import { existsSync } from 'node:fs';
import type { Config, LoadedConfig } from '../../../store/config/index.js';
import { modelEntries } from '../../../actors/wiring/models.js';
import { maskProxy, proxyFor } from '../../../adapters/http/client.js';
import { PICO_WS_PATH } from '../../channels/pico/path.js';
import { takesWebhooks, webhookPath } from '../../channels/webhook-path.js';
import { execIsolationState } from '../../../actors/wiring/exec-isolation.js';
import { describeIsolation, type IsolationState } from '../../tools/exec/isolation.js';
import { resolveModelEntry } from '../../../adapters/providers/resolve.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { readConfigForCli } from '../load-config.js';
import {
  gatewayReady,
  gatewayUp,
  HEALTH_TIMEOUT_MS,
  healthUrl,
  type ChannelReport,
  type GatewayLogState,
  type GatewayReady,
} from '../gateway-health.js';

/** The proxy requests to `url` go through, as shown: masked, and where it was set; `null` for none. */
function proxyShown(
  url: string,
  proxy: string | undefined,
): { proxy: string | null; proxy_from: 'config' | 'environment' | null } {
  try {
    const used = proxyFor(url, { proxy });
    return used ? { proxy: maskProxy(used.proxy), proxy_from: used.from } : { proxy: null, proxy_from: null };
  } catch {
    return { proxy: null, proxy_from: null };
  }
}

/** Each model entry as the provider layer resolves it; an entry it cannot use shows why. */
function describeModels(config: Config) {
  return modelEntries(config).map((entry, i) => {
    const keys = config.model_list[i]!.api_keys.map((k) => k.masked);
    const base = { model_name: entry.model_name, enabled: entry.enabled ?? true, key_count: keys.length, keys };
    try {
      const r = resolveModelEntry(entry);
      return {
        ...base,
        provider: r.provider,
        family: r.family as string,
        model: r.model,
        api_base: r.apiBase,
        ...proxyShown(r.apiBase, entry.proxy),
      };
    } catch (error) {
      return {
        ...base,
        provider: entry.provider ?? '?',
        family: 'unusable',
        model: entry.model,
        api_base: (error as Error).message,
        proxy: null,
        proxy_from: null,
      };
    }
  });
}

const TELEGRAM_API = 'https://api.telegram.org';

/**
 * Tern makes the connections of Telegram channels; `@discordjs/ws`/`rest` and Bolt make their own
 * (`proxy_from: 'library'`). With a gateway running, each channel's state there (`state`, and `reason` for one that
 * failed or cannot start). A channel that takes webhooks shows the URL the platform must post to, on the gateway's
 * HTTP server; an enabled `pico` entry the WebSocket address its clients connect to there.
 */
function describeChannels(config: Config, gatewayUrl: string, running: ChannelReport[] | undefined) {
  return Object.entries(config.channel_list).map(([name, c]) => {
    const type = c.type ?? name;
    const proxy =
      type === 'telegram'
        ? proxyShown(c.settings.base_url || TELEGRAM_API, c.settings.proxy)
        : { proxy: null, proxy_from: 'library' as const };
    const report = running?.find((r) => r.name === name);
    const live: { state?: string; reason?: string } = report
      ? { state: report.state, ...(report.reason ? { reason: report.reason } : {}) }
      : {};
    const settings = c.settings as Record<string, unknown>;
    const configured = typeof settings.webhook_path === 'string' ? settings.webhook_path : undefined;
    const webhook = takesWebhooks(type, settings)
      ? { webhook_url: `${gatewayUrl}${webhookPath(type, name, configured)}` }
      : {};
    // Pico clients dial the gateway's own port, as platforms post webhooks to it.
    const websocket =
      type === 'pico' && c.enabled ? { websocket_url: `${gatewayUrl.replace(/^http/, 'ws')}${PICO_WS_PATH}` } : {};
    return { name, type: c.type, enabled: c.enabled, ...proxy, ...webhook, ...websocket, ...live };
  });
}

const STATES: Record<string, string> = { refused: 'cannot start', failed: 'failed, retrying' };

function stateText(c: { state?: string; reason?: string }): string {
  if (c.state === undefined) return '';
  return `  ${STATES[c.state] ?? c.state}${c.reason ? `: ${c.reason}` : ''}`;
}

function proxyText(shown: { proxy: string | null; proxy_from: string | null }): string {
  if (shown.proxy_from === 'library') return 'proxy: its library connects by itself';
  if (shown.proxy === null) return 'proxy: none';
  return `proxy: ${shown.proxy}${shown.proxy_from === 'environment' ? ' (from the environment)' : ''}`;
}

function isolationSummary(state: IsolationState | undefined) {
  if (!state) return { state: 'exec_disabled', detail: 'exec is disabled (tools.exec.enabled is false)' };
  return { state: state.kind, detail: describeIsolation(state) };
}

function summary(
  loaded: LoadedConfig,
  url: string,
  up: boolean,
  ready: GatewayReady | undefined,
  isolation: IsolationState | undefined,
) {
  const { config } = loaded;
  return {
    ok: true,
    config: { path: loaded.path, exists: existsSync(loaded.path) },
    workspace: loaded.workspace,
    models: describeModels(config),
    channels: describeChannels(config, url.replace(/\/health$/, ''), ready?.channels),
    mcp_servers: Object.entries(config.tools.mcp.servers).map(([name, s]) => ({
      name,
      type: s.type ?? (s.url ? 'http' : 'stdio'),
      enabled: config.tools.mcp.enabled && s.enabled,
    })),
    gateway: { url, up, ...(up ? readyShown(ready) : {}) },
    exec_isolation: isolationSummary(isolation),
  };
}

/**
 * How far a gateway that answers `/health` is (`ready`: `/ready`'s status) and its event log's state; `no_answer`
 * when its `/ready` did not answer in time (a busy machine), so its channels' states are not known.
 */
function readyShown(ready: GatewayReady | undefined): {
  ready: GatewayReady['status'] | 'no_answer';
  log?: GatewayLogState;
} {
  if (!ready) return { ready: 'no_answer' };
  return { ready: ready.status, log: ready.log ?? { state: 'ok' } };
}

type Summary = ReturnType<typeof summary>;

const onOff = (enabled: boolean) => (enabled ? 'enabled' : 'disabled');

const READY_TEXT: Record<GatewayReady['status'] | 'no_answer', string> = {
  ready: 'up',
  starting: 'up, starting its channels',
  cannot_start: 'up, but a channel cannot start',
  degraded: 'up, degraded',
  no_answer: `up, but /ready did not answer within ${HEALTH_TIMEOUT_MS / 1000} s: channel states not shown`,
};

function gatewayText(gateway: Summary['gateway']): string {
  return `${gateway.ready === undefined ? 'down' : READY_TEXT[gateway.ready]} (${gateway.url})`;
}

function lines(s: Summary): string[] {
  return [
    `config      ${s.config.path}${s.config.exists ? '' : ' (missing: defaults in use; run `tern onboard`)'}`,
    `workspace   ${s.workspace}`,
    `models      ${s.models.length === 0 ? 'none (add one to model_list)' : s.models.length}`,
    ...s.models.map(
      (m) =>
        `  ${m.model_name}  provider ${m.provider} (${m.family})  model ${m.model}  base ${m.api_base}  ` +
        `${m.key_count} key${m.key_count === 1 ? '' : 's'}${m.keys.length ? ` (${m.keys.join(', ')})` : ''}  ` +
        `${proxyText(m)}  ${onOff(m.enabled)}`,
    ),
    `channels    ${s.channels.length === 0 ? 'none' : s.channels.length}`,
    ...s.channels.map((c) => {
      const webhook = 'webhook_url' in c ? `  webhook ${c.webhook_url}` : '';
      const websocket = 'websocket_url' in c ? `  websocket ${c.websocket_url}` : '';
      return `  ${c.name}  ${c.type}  ${proxyText(c)}  ${onOff(c.enabled)}${webhook}${websocket}${stateText(c)}`;
    }),
    `mcp         ${s.mcp_servers.length === 0 ? 'none' : s.mcp_servers.length}`,
    ...s.mcp_servers.map((m) => `  ${m.name}  ${m.type}  ${onOff(m.enabled)}`),
    `gateway     ${gatewayText(s.gateway)}`,
    ...(s.gateway.log?.state === 'failing'
      ? [
          `  event log cannot write since ${s.gateway.log.since}: ${s.gateway.log.reason}; new messages wait at ` +
            `their platforms (${s.gateway.log.waiting} events held in memory)`,
        ]
      : []),
    `isolation   ${s.exec_isolation.detail}`,
  ];
}

export async function run({ env, json, stdout, stderr }: CommandContext): Promise<number> {
  const loaded = readConfigForCli(env);
  const url = healthUrl(loaded.config);
  const [up, isolation] = await Promise.all([gatewayUp(url), execIsolationState(loaded.config)]);
  const ready = up ? await gatewayReady(url) : undefined;
  const s = summary(loaded, url, up, ready, isolation);
  if (json) print(stdout, JSON.stringify(s));
  else {
    for (const line of lines(s)) print(stdout, line);
    for (const warning of loaded.warnings) print(stderr, `tern: warning: ${warning}`);
  }
  return 0;
}

import type { Envelope, EventType } from '../../../bus/index.js';
import type { LastError, StatusReply } from '../../../bus/api-shapes.js';
import { maskUrlPassword, type Config } from '../../../store/config/index.js';
import type { EventStore } from '../../../store/log/event-store.js';
import { takesWebhooks, webhookPath } from '../../channels/webhook-path.js';

/** How far back the Status page looks for a last error or message: the newest events of each kind. */
const LOOK_BACK = 500;

/** The newest events of one type, newest first. */
function newest<T extends EventType>(log: EventStore | undefined, type: T): Array<Envelope<T>> {
  return (log?.read({ type, order: 'desc', limit: LOOK_BACK }) ?? []) as Array<Envelope<T>>;
}

/** `http://user:****@host:3128`: a proxy's password is a secret. */
export function maskedProxy(url: string | undefined): string | undefined {
  return url ? maskUrlPassword(url) : undefined;
}

export function modelCards(config: Config, log: EventStore | undefined): StatusReply['models'] {
  const failures = newest(log, 'provider.failed');
  return config.model_list.map((entry) => {
    const failed = failures.find((event) => event.data.model_name === entry.model_name);
    const proxy = maskedProxy(entry.proxy);
    return {
      name: entry.model_name,
      provider: entry.provider ?? 'guessed from the model',
      model: entry.model,
      enabled: entry.enabled,
      keys: entry.api_keys.length,
      ...(proxy ? { proxy } : {}),
      ...(failed ? { last_error: { at: failed.at, message: failed.data.message } } : {}),
    };
  });
}

export function channelCards(config: Config, log: EventStore | undefined, running: boolean): StatusReply['channels'] {
  const states = [...newest(log, 'channel.connected'), ...newest(log, 'channel.failed')].sort((a, b) => b.seq - a.seq);
  const received = newest(log, 'message.received');
  const started = newest(log, 'runtime.started')[0]?.seq ?? 0;
  const { host, port } = config.gateway;
  return Object.entries(config.channel_list).map(([name, entry]) => {
    const settings = entry.settings as Record<string, unknown>;
    const last = states.find((event) => event.data.channel === name);
    const failed = states.find((event) => event.data.channel === name && event.type === 'channel.failed') as
      | Envelope<'channel.failed'>
      | undefined;
    const message = received.find((event) => event.data.channel === name);
    const current = last && last.seq > started ? (last.type === 'channel.failed' ? 'failed' : 'connected') : 'starting';
    const configured = typeof settings.webhook_path === 'string' ? settings.webhook_path : undefined;
    const error: LastError | undefined = failed ? { at: failed.at, message: failed.data.message } : undefined;
    return {
      name,
      type: entry.type,
      enabled: entry.enabled,
      state: !entry.enabled ? 'off' : running ? current : 'stopped',
      ...(message
        ? { last_message: { at: message.at, sender: message.data.sender, text: message.data.text.slice(0, 200) } }
        : {}),
      ...(error ? { last_error: error } : {}),
      ...(takesWebhooks(entry.type, settings)
        ? { webhook_url: `http://${host}:${port}${webhookPath(entry.type, name, configured)}` }
        : {}),
    };
  });
}

export function mcpCards(config: Config, log: EventStore | undefined): StatusReply['mcp'] {
  const events = [...newest(log, 'mcp.connected'), ...newest(log, 'mcp.failed')].sort((a, b) => b.seq - a.seq);
  const { enabled, servers } = config.tools.mcp;
  return Object.entries(servers).map(([name, server]) => {
    const last = events.find((event) => event.data.server === name);
    const failed = events.find((event) => event.data.server === name && event.type === 'mcp.failed') as
      | Envelope<'mcp.failed'>
      | undefined;
    const on = enabled && server.enabled;
    const transport = server.type ?? (server.url ? 'http' : 'stdio');
    return {
      name,
      transport,
      target: maskUrlPassword(server.url ?? [server.command ?? '', ...server.args].join(' ')),
      enabled: on,
      state: !on ? 'off' : !last ? 'not started' : last.type === 'mcp.connected' ? 'connected' : 'failed',
      ...(last?.type === 'mcp.connected' ? { tools: (last as Envelope<'mcp.connected'>).data.tools } : {}),
      ...(failed ? { last_error: { at: failed.at, message: failed.data.reason } } : {}),
    };
  });
}

import type { Config } from '../../store/config/index.js';
import type { McpOAuthConfig, McpOptions, McpServerConfig } from './options.js';

type McpBlock = Config['tools']['mcp'];
type ServerBlock = McpBlock['servers'][string];

function revealAll(values: Record<string, { reveal(): string }>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value.reveal()]));
}

function oauthOf(oauth: Record<string, unknown>): McpOAuthConfig {
  const text = (key: string) => (typeof oauth[key] === 'string' ? { [key]: oauth[key] } : {});
  return { ...text('scope'), ...text('client_name'), ...text('client_id'), ...text('client_secret') };
}

function serverOf(server: ServerBlock): McpServerConfig {
  return {
    enabled: server.enabled,
    ...(server.deferred === undefined ? {} : { deferred: server.deferred }),
    ...(server.type ? { type: server.type } : {}),
    ...(server.command ? { command: server.command } : {}),
    args: server.args,
    env: revealAll(server.env),
    ...(server.env_file ? { env_file: server.env_file } : {}),
    inherit_env: server.inherit_env,
    ...(server.url ? { url: server.url } : {}),
    headers: revealAll(server.headers),
    ...(server.oauth ? { oauth: oauthOf(server.oauth) } : {}),
  };
}

/** The validated `tools.mcp` block as the adapter's options, secrets revealed for the transports. */
export function mcpOptionsFromConfig(block: McpBlock): McpOptions {
  return {
    enabled: block.enabled,
    discovery: { ...block.discovery },
    servers: Object.fromEntries(Object.entries(block.servers).map(([name, server]) => [name, serverOf(server)])),
    max_inline_text_chars: block.max_inline_text_chars,
  };
}

/**
 * What the MCP adapter needs, in the spec's field names (`tools.mcp`). The config layer maps its
 * validated block onto these; secrets arrive here already revealed.
 */
export interface McpServerConfig {
  enabled: boolean;
  /** true hides the tools until a discovery search finds them; omitted follows `discovery.enabled`. */
  deferred?: boolean;
  /** `stdio`, `sse` or `http`; omitted: `url` means http, `command` means stdio. */
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  env_file?: string;
  /** Pass the whole process environment to a stdio server; otherwise only a minimal safe one. */
  inherit_env?: boolean;
  url?: string;
  headers?: Record<string, string>;
  /** Browser OAuth (`tern mcp login <name>`); extra keys such as `scope` and `client_name` are optional. */
  oauth?: McpOAuthConfig;
}

export interface McpOAuthConfig {
  scope?: string;
  client_name?: string;
  client_id?: string;
  client_secret?: string;
}

export interface McpDiscoveryOptions {
  enabled: boolean;
  ttl: number;
  max_search_results: number;
  use_bm25: boolean;
  use_regex: boolean;
}

export interface McpOptions {
  enabled: boolean;
  discovery: McpDiscoveryOptions;
  servers: Record<string, McpServerConfig>;
  max_inline_text_chars: number;
}

export const TRANSPORTS = ['stdio', 'sse', 'http'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

export const DEFAULT_DISCOVERY: McpDiscoveryOptions = {
  enabled: false,
  ttl: 5,
  max_search_results: 5,
  use_bm25: true,
  use_regex: false,
};

export const DEFAULT_MCP: McpOptions = {
  enabled: false,
  discovery: DEFAULT_DISCOVERY,
  servers: {},
  max_inline_text_chars: 16000,
};

export const DISCOVERY_WITHOUT_SEARCH =
  'tools.mcp.discovery: enabled with use_bm25 and use_regex both false; ' +
  'enable one of them (allowed: use_bm25, use_regex)';

/** The transport a server uses, or undefined when its `type` is not one we know. */
export function transportOf(server: McpServerConfig): TransportKind | undefined {
  if (server.type === undefined) return server.url ? 'http' : 'stdio';
  return TRANSPORTS.find((kind) => kind === server.type);
}

export function isDeferred(server: McpServerConfig, discovery: McpDiscoveryOptions): boolean {
  return server.deferred ?? discovery.enabled;
}

function hasAuthorizationHeader(server: McpServerConfig): boolean {
  return Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

function serverProblems(name: string, server: McpServerConfig): string[] {
  const at = `tools.mcp.servers.${name}`;
  const kind = transportOf(server);
  if (!kind) return [`${at}.type: unknown type "${server.type}" (allowed: ${TRANSPORTS.join(', ')})`];
  const problems: string[] = [];
  if (kind === 'stdio' && !server.command)
    problems.push(`${at}.command: is required for a stdio server (allowed: an executable name or path)`);
  if (kind !== 'stdio' && !server.url)
    problems.push(`${at}.url: is required for a ${kind} server (allowed: an http(s) URL)`);
  if (kind !== 'stdio' && server.url && !/^https?:\/\//i.test(server.url)) {
    problems.push(`${at}.url: "${server.url}" is not an http(s) URL (allowed: http://… or https://…)`);
  }
  if (server.oauth && hasAuthorizationHeader(server)) {
    problems.push(
      `${at}.oauth: cannot be combined with an Authorization header ` +
        '(allowed: oauth or headers.Authorization, not both)',
    );
  }
  if (server.oauth && kind === 'stdio')
    problems.push(`${at}.oauth: only remote servers log in (allowed: type sse or http with a url)`);
  return problems;
}

/** Every rule the config schema cannot see at once; an empty list means the MCP block can start. */
export function mcpConfigProblems(options: McpOptions): string[] {
  const problems = Object.entries(options.servers).flatMap(([name, server]) => serverProblems(name, server));
  const { discovery } = options;
  if (discovery.enabled && !discovery.use_bm25 && !discovery.use_regex) problems.push(DISCOVERY_WITHOUT_SEARCH);
  return problems;
}

/** Thrown when the application must not start with this MCP block. */
export class McpConfigError extends Error {
  readonly code = 'mcp_config_invalid';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'McpConfigError';
  }
}

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetchOn } from '../http/client.js';
import { McpLoginRequiredError, type StoredOAuthProvider } from './oauth-provider.js';
import { transportOf, type McpServerConfig } from './options.js';
import { stdioEnvironment } from './stdio-env.js';

/** Thrown for a server whose config cannot make a transport; `mcpConfigProblems` names the same rules. */
export class McpTransportError extends Error {
  readonly code = 'mcp_transport_invalid';
  constructor(message: string) {
    super(message);
    this.name = 'McpTransportError';
  }
}

export interface TransportContext {
  processEnv: NodeJS.ProcessEnv;
  home: string;
  authProvider?: StoredOAuthProvider;
}

/**
 * A live transport plus what the supervisor reads from it: the stdio child's pid, its last stderr, and the secret
 * values it was handed (env and env_file values, header values), which a failure's text must never show.
 */
export interface OpenedTransport {
  transport: Transport;
  pid(): number | undefined;
  stderrTail(): string;
  secrets: string[];
}

const STDERR_TAIL_CHARS = 400;

// The SDK's transports load on the first connection, so a runtime without MCP servers never pays for them.
async function stdio(server: McpServerConfig, context: TransportContext): Promise<OpenedTransport> {
  const { StdioClientTransport, DEFAULT_INHERITED_ENV_VARS } = await import(
    '@modelcontextprotocol/sdk/client/stdio.js'
  );
  const { env, secrets } = stdioEnvironment(server, context.processEnv, context.home, DEFAULT_INHERITED_ENV_VARS);
  const command = { command: server.command ?? '', args: server.args ?? [] };
  const transport = new StdioClientTransport({ ...command, env, stderr: 'pipe' });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  return { transport, pid: () => transport.pid ?? undefined, stderrTail: () => tail.trim(), secrets };
}

async function remote(
  name: string,
  kind: 'sse' | 'http',
  server: McpServerConfig,
  context: TransportContext,
): Promise<OpenedTransport> {
  // Without stored tokens the SDK would register a client and ask for a browser nobody is watching.
  if (context.authProvider && !context.authProvider.tokens()) throw new McpLoginRequiredError(name);
  const url = new URL(server.url ?? '');
  const options = {
    requestInit: { headers: server.headers ?? {} },
    // Requests go out through our client: the environment's proxy settings apply, as they do to every other call.
    fetch: fetchOn({}),
    ...(context.authProvider ? { authProvider: context.authProvider } : {}),
  };
  const transport =
    kind === 'sse'
      ? new (await import('@modelcontextprotocol/sdk/client/sse.js')).SSEClientTransport(url, options)
      : new (await import('@modelcontextprotocol/sdk/client/streamableHttp.js')).StreamableHTTPClientTransport(
          url,
          options,
        );
  return { transport, pid: () => undefined, stderrTail: () => '', secrets: Object.values(server.headers ?? {}) };
}

export async function openTransport(
  name: string,
  server: McpServerConfig,
  context: TransportContext,
): Promise<OpenedTransport> {
  const kind = transportOf(server);
  if (!kind) throw new McpTransportError(`server ${name}: unknown type "${server.type}" (allowed: stdio, sse, http)`);
  if (kind === 'stdio') return stdio(server, context);
  try {
    return await remote(name, kind, server, context);
  } catch (error) {
    if (error instanceof McpLoginRequiredError) throw error;
    throw new McpTransportError(
      `server ${name}: url "${server.url ?? ''}" is not a valid URL (allowed: http://… or https://…)`,
    );
  }
}

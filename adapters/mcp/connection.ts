import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { retryDelay, type Backoff, type ConnectionState } from './connection-state.js';
import type { McpServerConfig } from './options.js';
import { redactFailure } from './server-secrets.js';
import { openTransport, type OpenedTransport, type TransportContext } from './transport.js';

export interface ConnectionDeps {
  context: TransportContext;
  backoff: Backoff;
  connectTimeoutMs: number;
  onChange(name: string, state: ConnectionState): void;
}

/** Raised for a call to a server that is not connected right now; the text says why. */
export class McpNotConnectedError extends Error {
  readonly code = 'mcp_not_connected';
  constructor(server: string, state: ConnectionState) {
    const why = state.state === 'failed' ? state.reason : state.state;
    super(`MCP server ${server} is not connected (${why}); try again shortly`);
    this.name = 'McpNotConnectedError';
  }
}

class ConnectTimeoutError extends Error {
  readonly code = 'mcp_connect_timeout';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function listAllTools(client: Client): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function reasonOf(error: unknown, opened: OpenedTransport | undefined, server: McpServerConfig): string {
  const message = error instanceof Error ? error.message : String(error);
  const stderr = opened?.stderrTail();
  return redactFailure(stderr ? `${message}; stderr: ${stderr}` : message, server, opened?.secrets);
}

/**
 * One supervised server: connects, lists its tools, and when the connection drops or cannot be made,
 * tries again with backoff until stopped. Nothing here ever waits on the server for its caller.
 */
export class McpConnection {
  private client: Client | undefined;
  private opened: OpenedTransport | undefined;
  private current: ConnectionState = { state: 'connecting', attempt: 0 };
  private tools: McpToolInfo[] = [];
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private waiters: Array<(state: ConnectionState) => void> = [];

  constructor(
    readonly name: string,
    readonly server: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {}

  get state(): ConnectionState {
    return this.current;
  }

  get listedTools(): readonly McpToolInfo[] {
    return this.current.state === 'connected' ? this.tools : [];
  }

  /** The stdio server's process id while connected. */
  get pid(): number | undefined {
    return this.opened?.pid();
  }

  start(): void {
    void this.attempt();
  }

  /** Resolves at the next settled state (connected or failed), or at once if one holds now. */
  settled(): Promise<ConnectionState> {
    if (this.current.state === 'connected' || this.current.state === 'failed') return Promise.resolve(this.current);
    return this.next();
  }

  /** Resolves at the next state change into connected, failed or (when stopped) disabled. */
  next(): Promise<ConnectionState> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async call(tool: string, args: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.current.state !== 'connected') throw new McpNotConnectedError(this.name, this.current);
    const result = await client.callTool({ name: tool, arguments: args }, undefined, options);
    if ('content' in result && Array.isArray(result.content)) return result as CallToolResult;
    // Servers of protocol 2024-10-07 answer with `toolResult`; show it as text.
    return { content: [{ type: 'text', text: JSON.stringify('toolResult' in result ? result.toolResult : result) }] };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.discard();
    this.set({ state: 'disabled' });
  }

  private set(state: ConnectionState): void {
    this.current = state;
    this.deps.onChange(this.name, state);
    if (state.state === 'connected' || state.state === 'failed' || state.state === 'disabled') {
      for (const wake of this.waiters.splice(0)) wake(state);
    }
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    this.set({ state: 'connecting', attempt: this.failures + 1 });
    // The SDK loads on the first connection, so a runtime without MCP servers never pays for it.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    if (this.stopped) return;
    const client = new Client(
      { name: 'tern', version: '1' },
      { listChanged: { tools: { onChanged: (error, tools) => this.toolsChanged(client, error, tools) } } },
    );
    this.client = client;
    try {
      const opened = await openTransport(this.name, this.server, this.deps.context);
      if (this.stopped || this.client !== client) {
        // Stopped while the transport was being made: connecting now would start a server nobody ever stops, and
        // its process would keep a finished `tern agent` alive until it exits on its own.
        await opened.transport.close().catch(() => undefined);
        return;
      }
      this.opened = opened;
      client.onclose = () => this.dropped(client);
      await withTimeout(client.connect(this.opened.transport), this.deps.connectTimeoutMs);
      this.tools = await withTimeout(listAllTools(client), this.deps.connectTimeoutMs);
      if (this.stopped || this.client !== client) return;
      this.failures = 0;
      this.set({ state: 'connected', tools: this.tools.length });
    } catch (error) {
      if (this.stopped || this.client !== client) return;
      const reason = reasonOf(error, this.opened, this.server);
      await this.discard();
      this.fail(reason);
    }
  }

  /** A server announced a new tool list (`notifications/tools/list_changed`); the SDK fetched it. */
  private toolsChanged(client: Client, error: Error | null, tools: McpToolInfo[] | null): void {
    if (error || !tools || this.client !== client || this.current.state !== 'connected') return;
    this.tools = tools;
    this.set({ state: 'connected', tools: tools.length });
  }

  private dropped(client: Client): void {
    if (this.stopped || this.client !== client) return;
    const reason = reasonOf(new Error('connection closed'), this.opened, this.server);
    this.client = undefined;
    this.opened = undefined;
    this.fail(reason);
  }

  private fail(reason: string): void {
    if (this.stopped) return;
    this.failures += 1;
    const retryInMs = retryDelay(this.deps.backoff, this.failures);
    this.set({ state: 'failed', reason, retryInMs });
    this.retryTimer = setTimeout(() => void this.attempt(), retryInMs);
  }

  private async discard(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.opened = undefined;
    this.tools = [];
    await client?.close().catch(() => undefined);
  }
}

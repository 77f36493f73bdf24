import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { Subject } from 'rxjs';
import type { McpServerConfig } from './options.js';
import { redactFailure } from './server-secrets.js';
import { openTransport, type OpenedTransport, type TransportContext } from './transport.js';

/** What a live link tells its server's machine: a new tool list, or that the connection dropped. */
export type LinkEvent = { type: 'TOOLS_CHANGED'; tools: readonly McpToolInfo[] } | { type: 'FAILED'; reason: string };

class ConnectTimeoutError extends Error {
  readonly code = 'mcp_connect_timeout';
}

/** A connection attempt that failed; the message is the reason a person reads. */
export class McpConnectError extends Error {
  readonly code = 'mcp_connect_failed';
}

/** An attempt given up because the connection was stopped meanwhile; nobody reads its reason. */
class AttemptAbortedError extends Error {
  readonly code = 'mcp_attempt_aborted';
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

/** A connected SDK client and its transport: what a `connected` server machine holds. */
export class McpLink {
  /** Tool lists the server announced and the connection's end, for the machine's `watch` actor. */
  readonly events = new Subject<LinkEvent>();

  constructor(
    private readonly client: Client,
    private readonly opened: OpenedTransport,
    server: McpServerConfig,
  ) {
    const dropped = new Error('connection closed');
    client.onclose = () => this.events.next({ type: 'FAILED', reason: reasonOf(dropped, opened, server) });
  }

  /** The stdio server's process id. */
  pid(): number | undefined {
    return this.opened.pid();
  }

  async call(tool: string, args: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    const result = await this.client.callTool({ name: tool, arguments: args }, undefined, options);
    if ('content' in result && Array.isArray(result.content)) return result as CallToolResult;
    // Servers of protocol 2024-10-07 answer with `toolResult`; show it as text.
    return { content: [{ type: 'text', text: JSON.stringify('toolResult' in result ? result.toolResult : result) }] };
  }

  async close(): Promise<void> {
    this.client.onclose = undefined;
    this.events.complete();
    await this.client.close().catch(() => undefined);
  }
}

export interface LinkOptions {
  context: TransportContext;
  connectTimeoutMs: number;
}

/**
 * Opens the transport, connects a client and lists the server's tools. A failure throws an Error whose message is the
 * reason a person reads (stderr's tail added, secrets masked). `signal` aborts the attempt: whatever was opened is
 * closed at once, so a server started for a connection nobody wants any more does not keep the process alive.
 */
export async function openLink(
  name: string,
  server: McpServerConfig,
  options: LinkOptions,
  signal: AbortSignal,
): Promise<{ link: McpLink; tools: McpToolInfo[] }> {
  // The SDK loads on the first connection, so a runtime without MCP servers never pays for it.
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const changed = new Subject<LinkEvent>();
  const client = new Client(
    { name: 'tern', version: '1' },
    {
      listChanged: {
        tools: {
          onChanged: (error, tools) => void (!error && tools && changed.next({ type: 'TOOLS_CHANGED', tools })),
        },
      },
    },
  );
  const abandon = () => void client.close().catch(() => undefined);
  signal.addEventListener('abort', abandon, { once: true });
  let opened: OpenedTransport | undefined;
  try {
    if (signal.aborted) throw new AttemptAbortedError('stopped');
    opened = await openTransport(name, server, options.context);
    // Stopped while the transport was being made: connecting now would start a server nobody ever stops.
    if (signal.aborted) throw new AttemptAbortedError('stopped');
    await withTimeout(client.connect(opened.transport), options.connectTimeoutMs);
    const tools = await withTimeout(listAllTools(client), options.connectTimeoutMs);
    if (signal.aborted) throw new AttemptAbortedError('stopped');
    const link = new McpLink(client, opened, server);
    changed.subscribe(link.events);
    return { link, tools };
  } catch (error) {
    const failure = error instanceof AttemptAbortedError ? error : new McpConnectError(reasonOf(error, opened, server));
    await client.close().catch(() => undefined);
    await opened?.transport.close().catch(() => undefined);
    throw failure;
  } finally {
    signal.removeEventListener('abort', abandon);
  }
}

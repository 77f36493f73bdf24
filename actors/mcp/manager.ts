import { isDeepStrictEqual } from 'node:util';
import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { EventDraft } from '../../bus/events/index.js';
import type { FilterOptions } from '../../adapters/tools/options.js';
import { fail, type Tool, type ToolContext, type ToolResult } from '../../adapters/tools/tool.js';
import { createActor, type Actor } from 'xstate';
import { McpConnection, type ConnectionDeps } from './connection.js';
import { mcpManagerLogic, type McpManagerState } from './manager-state.js';
import { DEFAULT_BACKOFF, type Backoff, type ConnectionState } from './connection-state.js';
import { mcpArguments, POLICY_NOTE, type McpArguments, type McpTool } from '../../adapters/mcp/mcp-tool.js';
import { StoredOAuthProvider } from '../../adapters/mcp/oauth-provider.js';
import {
  isDeferred,
  mcpConfigProblems,
  McpConfigError,
  transportOf,
  type McpOptions,
  type McpServerConfig,
  type TransportKind,
} from '../../adapters/mcp/options.js';
import { toToolResult } from '../../adapters/mcp/result.js';
import { discoverySearchTools, type DiscoveryHooks } from '../../adapters/mcp/search-tools.js';
import { mcpToolNames } from '../../adapters/mcp/tool-name.js';
import { mcpServerBoard } from '../../machines/mcp-server.js';
import { BoardInspector } from '../board.js';
import { byCodePoint } from '../../store/code-point-order.js';

export interface McpManagerDeps {
  options: McpOptions;
  /** Where results too long to show inline, and images, are saved. */
  workspace: string;
  /** AGENT_HOME: login tokens and relative `env_file` paths. */
  home: string;
  env?: NodeJS.ProcessEnv;
  filter?: Pick<FilterOptions, 'enabled' | 'minLength' | 'secrets'>;
  /**
   * Status changes as bus drafts (`mcp.connected`, `mcp.failed`), and the servers' machines as the gateway's children
   * on the machines page: every move as `actor.transitioned`, a stopped server's end as `actor.stopped`.
   */
  report?: (draft: EventDraft) => void;
  backoff?: Backoff;
  connectTimeoutMs?: number;
  /** The clock of the retry delays; real time by default. */
  clock?: ConnectionDeps['clock'];
  callTimeoutMs?: number;
}

export interface McpServerStatus {
  name: string;
  enabled: boolean;
  deferred: boolean;
  transport: TransportKind | undefined;
  connection: ConnectionState;
}

const DEFAULT_FILTER = { enabled: true, minLength: 8, secrets: [] };

function checked(options: McpOptions): void {
  if (!options.enabled) return;
  const problems = mcpConfigProblems(options);
  if (problems.length > 0) throw new McpConfigError(problems);
}

/** The entry a server runs under, or undefined when it should not run (removed, disabled, or MCP off). */
function wanted(options: McpOptions, name: string): McpServerConfig | undefined {
  const server = options.servers[name];
  return options.enabled && server?.enabled ? server : undefined;
}

/**
 * Every configured MCP server as a supervised connection. `start()` returns at once: a slow or dead
 * server never holds up the gateway or a turn; its tools simply appear once it has connected.
 */
export class McpManager {
  private readonly board: BoardInspector;
  /** The manager's state (`manager-state.ts`): its block, its connections, its tools by name. */
  private readonly held: Actor<typeof mcpManagerLogic>;

  constructor(private readonly deps: McpManagerDeps) {
    this.held = createActor(mcpManagerLogic, { input: deps.options }).start();
    this.board = new BoardInspector({ publish: (draft) => deps.report?.(draft) }, { mcp_server: mcpServerBoard });
  }

  /** Throws `McpConfigError` when the block must not start (the application then refuses to start). */
  start(): void {
    checked(this.state.options);
    this.startMissing();
  }

  /**
   * A reloaded `tools.mcp` block: a server whose entry is gone (or now disabled) stops, one whose entry changed
   * restarts, a new one starts, and the others keep their connection and process. Resolves once the stopped ones
   * have ended and the started ones have connected or failed, so the turn that follows sees their tools. Throws
   * `McpConfigError` for a block that must not run, and then changes nothing.
   */
  async reconfigure(options: McpOptions): Promise<void> {
    checked(options);
    const stale = [...this.state.connections].filter(
      ([name, connection]) => !isDeepStrictEqual(connection.server, wanted(options, name)),
    );
    this.held.send({ type: 'reconfigured', options, stale: stale.map(([name]) => name) });
    await Promise.all(stale.map(([, connection]) => connection.stop()));
    const started = this.startMissing();
    await Promise.all(started.map((connection) => connection.settled()));
  }

  /** Starts every enabled server that has no connection yet; returns the connections it started. */
  private startMissing(): McpConnection[] {
    const { options, connections } = this.state;
    if (!options.enabled) return [];
    const started: McpConnection[] = [];
    for (const [name, server] of Object.entries(options.servers)) {
      if (!server.enabled || connections.has(name)) continue;
      const connection = new McpConnection(name, server, {
        context: { processEnv: this.deps.env ?? process.env, home: this.deps.home, ...this.authFor(name, server) },
        backoff: this.deps.backoff ?? DEFAULT_BACKOFF,
        connectTimeoutMs: this.deps.connectTimeoutMs ?? 30_000,
        ...(this.deps.clock ? { clock: this.deps.clock } : {}),
        onChange: (changed, state) => this.changed(changed, state),
        inspect: this.board.inspect,
      });
      this.held.send({ type: 'started', name, connection });
      started.push(connection);
      connection.start();
    }
    return started;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.state.connections.values()].map((c) => c.stop()));
    this.held.send({ type: 'stopped' });
  }

  statuses(): McpServerStatus[] {
    const { options, connections } = this.state;
    return Object.entries(options.servers).map(([name, server]) => ({
      name,
      enabled: options.enabled && server.enabled,
      deferred: isDeferred(server, options.discovery),
      transport: transportOf(server),
      connection: connections.get(name)?.state ?? { state: 'disabled' },
    }));
  }

  /** Resolves when the server has connected or failed (at once if it already has); for the CLI and tests. */
  settled(server: string): Promise<ConnectionState> {
    return this.state.connections.get(server)?.settled() ?? Promise.resolve({ state: 'disabled' });
  }

  /** Resolves at the server's next connected or failed state. */
  nextState(server: string): Promise<ConnectionState> {
    return this.state.connections.get(server)?.next() ?? Promise.resolve({ state: 'disabled' });
  }

  /** The stdio server's process id while connected. */
  pid(server: string): number | undefined {
    return this.state.connections.get(server)?.pid;
  }

  /** Every tool of the connected servers in scope, hidden ones included (what discovery searches). */
  catalogue(agentServers?: readonly string[]): McpTool[] {
    const scope = agentServers ? new Set(agentServers) : undefined;
    return [...this.toolsByName().values()].filter((tool) => !scope || scope.has(tool.server));
  }

  /** The tools a turn shows the model now: those not deferred, plus the ones discovery unlocked. */
  tools(agentServers?: readonly string[], unlocked: ReadonlySet<string> = new Set()): McpTool[] {
    return this.catalogue(agentServers).filter((tool) => !tool.deferred || unlocked.has(tool.name));
  }

  /** True when some server in scope hides its tools, so the discovery search tools belong in the turn. */
  hasDeferred(agentServers?: readonly string[]): boolean {
    const scope = agentServers ? new Set(agentServers) : undefined;
    return this.statuses().some((s) => s.enabled && s.deferred && (!scope || scope.has(s.name)));
  }

  /**
   * The discovery search tools for one session, when some server in scope hides its tools; `found`
   * feeds the session's discovery machine (`FOUND`).
   */
  searchTools(agentServers: readonly string[] | undefined, found: DiscoveryHooks['found']): Tool[] {
    if (!this.hasDeferred(agentServers)) return [];
    const hidden = () => this.catalogue(agentServers).filter((tool) => tool.deferred);
    return discoverySearchTools(this.state.options.discovery, { hidden, found });
  }

  async call(name: string, args: McpArguments, signal?: AbortSignal): Promise<ToolResult> {
    const tool = this.toolsByName().get(name);
    if (!tool) return fail(`unknown MCP tool "${name}" (its server may be disconnected or the tool removed)`);
    const connection = this.state.connections.get(tool.server);
    if (!connection) return fail(`MCP server ${tool.server} is not running`);
    try {
      const result = await connection.call(tool.remoteName, args, {
        timeout: this.deps.callTimeoutMs ?? 120_000,
        ...(signal ? { signal } : {}),
      });
      return await toToolResult(result, {
        workspace: this.deps.workspace,
        maxInlineTextChars: this.state.options.max_inline_text_chars,
        filter: this.deps.filter ?? DEFAULT_FILTER,
      });
    } catch (error) {
      return fail(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private authFor(name: string, server: McpServerConfig): { authProvider?: StoredOAuthProvider } {
    if (!server.oauth) return {};
    return { authProvider: new StoredOAuthProvider(this.deps.home, name, server.oauth, { kind: 'runtime' }) };
  }

  private get state(): McpManagerState {
    return this.held.getSnapshot().context;
  }

  private changed(server: string, state: ConnectionState): void {
    this.held.send({ type: 'changed' });
    if (state.state === 'connected')
      this.deps.report?.({ type: 'mcp.connected', data: { server, tools: state.tools } });
    if (state.state === 'failed') {
      this.deps.report?.({ type: 'mcp.failed', data: { server, reason: state.reason, retry_in_ms: state.retryInMs } });
    }
  }

  private toolsByName(): ReadonlyMap<string, McpTool> {
    const { named, connections, options } = this.state;
    if (named) return named;
    const listed: Array<{ server: string; info: McpToolInfo }> = [];
    for (const [server, connection] of [...connections].sort(([a], [b]) => byCodePoint(a, b))) {
      for (const info of [...connection.listedTools].sort((a, b) => byCodePoint(a.name, b.name)))
        listed.push({ server, info });
    }
    const names = mcpToolNames(listed.map(({ server, info }) => ({ server, tool: info.name })));
    const infos = new Map(listed.map(({ server, info }) => [`${server}\u0000${info.name}`, info]));
    const tools = new Map(
      [...names].map(([name, origin]) => [
        name,
        this.toolFor(options, name, origin.server, infos.get(`${origin.server}\u0000${origin.tool}`)!),
      ]),
    );
    this.held.send({ type: 'named', tools });
    return tools;
  }

  private toolFor(options: McpOptions, name: string, server: string, info: McpToolInfo): McpTool {
    const config = options.servers[server]!;
    return {
      name,
      server,
      remoteName: info.name,
      summary: info.description ?? info.title ?? '',
      description: `${info.description ?? info.title ?? info.name}\n(${POLICY_NOTE} Server: ${server}.)`,
      parameters: mcpArguments,
      jsonSchema: info.inputSchema,
      deferred: isDeferred(config, options.discovery),
      execute: (args: McpArguments, context: ToolContext) => this.call(name, args, context.signal),
    };
  }
}

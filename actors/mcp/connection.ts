import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { filter, firstValueFrom, from, map } from 'rxjs';
import {
  createActor,
  fromCallback,
  fromPromise,
  type Actor,
  type ActorOptions,
  type InspectionEvent,
  type SnapshotFrom,
} from 'xstate';
import {
  mcpServerMachine,
  type ConnectInput,
  type McpServerEvent,
  type WatchInput,
} from '../../machines/mcp-server.js';
import { connectionOf, type Backoff, type ConnectionState } from './connection-state.js';
import { type McpLink, openLink } from '../../adapters/mcp/link.js';
import type { McpServerConfig } from '../../adapters/mcp/options.js';
import { serverMoves } from './server-moves.js';
import type { TransportContext } from '../../adapters/mcp/transport.js';

declare module '../../machines/mcp-server.js' {
  interface McpServerRegister {
    link: McpLink;
    tool: McpToolInfo;
  }
}

export interface ConnectionDeps {
  context: TransportContext;
  backoff: Backoff;
  connectTimeoutMs: number;
  /** The connection's state after each move of the server's machine (a change of state, or a new tool list). */
  onChange(name: string, state: ConnectionState): void;
  /** The board that shows the machine's moves and its end (`actor.transitioned`, `actor.stopped`). */
  inspect(inspection: InspectionEvent): void;
  /** The clock of the retry delays; real time by default. */
  clock?: ActorOptions<typeof mcpServerMachine>['clock'];
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

type ServerSnapshot = SnapshotFrom<typeof mcpServerMachine>;

const settledIn = (snapshot: ServerSnapshot): boolean =>
  snapshot.matches('connected') || snapshot.matches('failed') || snapshot.status === 'done';

/** The machine's effects for one server: the SDK client and its transport as invoked actors. */
function serverMachine(server: McpServerConfig, deps: ConnectionDeps) {
  const options = { context: deps.context, connectTimeoutMs: deps.connectTimeoutMs };
  return mcpServerMachine.provide({
    actors: {
      connect: fromCallback<McpServerEvent, ConnectInput>(({ input, sendBack }) => {
        const attempt = new AbortController();
        void openLink(input.server, server, options, attempt.signal).then(
          ({ link, tools }) => (attempt.signal.aborted ? link.close() : sendBack({ type: 'CONNECTED', link, tools })),
          (error: Error) => attempt.signal.aborted || sendBack({ type: 'FAILED', reason: error.message }),
        );
        // Leaving `connecting` after `CONNECTED` hands the link over: the attempt has already ended then.
        return () => attempt.abort();
      }),
      watch: fromCallback<McpServerEvent, WatchInput>(({ input, sendBack }) => {
        const watching = input.link.events.subscribe(sendBack);
        return () => watching.unsubscribe();
      }),
      close: fromPromise<void, McpLink>(({ input }) => input.close()),
    },
  });
}

/**
 * One supervised server, hosting its `mcpServerMachine` actor: the machine is the connection's state (and holds the
 * client while connected); this class answers questions about it. Nothing here ever waits on the server for its
 * caller.
 */
export class McpConnection {
  private readonly actor: Actor<typeof mcpServerMachine>;

  constructor(
    readonly name: string,
    readonly server: McpServerConfig,
    deps: ConnectionDeps,
  ) {
    const moves = serverMoves((_, snapshot) => deps.onChange(name, connectionOf(snapshot)));
    this.actor = createActor(serverMachine(server, deps), {
      input: { server: name, backoff: deps.backoff },
      ...(deps.clock ? { clock: deps.clock } : {}),
      inspect: (inspection) => {
        deps.inspect(inspection);
        moves(inspection);
      },
    });
  }

  get state(): ConnectionState {
    return connectionOf(this.actor.getSnapshot());
  }

  get listedTools(): readonly McpToolInfo[] {
    const snapshot = this.actor.getSnapshot();
    return snapshot.matches('connected') ? snapshot.context.tools : [];
  }

  /** The stdio server's process id while connected. */
  get pid(): number | undefined {
    return this.actor.getSnapshot().context.link?.pid();
  }

  start(): void {
    this.actor.start();
    this.actor.send({ type: 'CONNECT' });
  }

  /** Resolves at the next settled state (connected or failed), or at once if one holds now. */
  settled(): Promise<ConnectionState> {
    const snapshot = this.actor.getSnapshot();
    return settledIn(snapshot) ? Promise.resolve(connectionOf(snapshot)) : this.next();
  }

  /** Resolves at the next state change into connected, failed or (when stopped) disabled. */
  next(): Promise<ConnectionState> {
    const moves = from(this.actor).pipe(filter(settledIn), map(connectionOf));
    return firstValueFrom(moves, { defaultValue: connectionOf(this.actor.getSnapshot()) });
  }

  async call(tool: string, args: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    const snapshot = this.actor.getSnapshot();
    const { link } = snapshot.context;
    if (!link || !snapshot.matches('connected')) throw new McpNotConnectedError(this.name, connectionOf(snapshot));
    return link.call(tool, args, options);
  }

  /** Resolves once the client has closed (a stdio server's process has been told to end). */
  async stop(): Promise<void> {
    if (this.actor.getSnapshot().status !== 'active') return;
    const ended = firstValueFrom(from(this.actor).pipe(filter((snapshot) => snapshot.status === 'done')), {
      defaultValue: undefined,
    });
    this.actor.send({ type: 'STOP' });
    await ended;
  }
}

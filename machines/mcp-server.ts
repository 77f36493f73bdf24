import { assign, fromCallback, fromPromise, setup } from 'xstate';
import type { Board, ShownContext } from './board.js';

/**
 * What a live connection and a listed tool are: `machines/` imports no SDK types, so the host registers them by
 * augmenting this interface (`declare module`) with `link` and `tool`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the host's declaration merging
export interface McpServerRegister {}
type Link = McpServerRegister extends { link: infer T } ? T : unknown;
type Tool = McpServerRegister extends { tool: infer T } ? T : unknown;

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** Doubles per consecutive failure, capped: the 1st failure waits `initialMs`. */
export function retryDelay(backoff: Backoff, failures: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
}

/**
 * `CONNECT`: the host starts the connection. `CONNECTED`, `FAILED` and `TOOLS_CHANGED` come from the invoked
 * `connect` and `watch` actors (the SDK client and its transport). `STOP`: the server was removed or the host stops.
 */
export type McpServerEvent =
  | { type: 'CONNECT' }
  | { type: 'CONNECTED'; link: Link; tools: readonly Tool[] }
  | { type: 'TOOLS_CHANGED'; tools: readonly Tool[] }
  | { type: 'FAILED'; reason: string }
  | { type: 'STOP' };

export interface McpServerInput {
  server: string;
  backoff: Backoff;
}

export interface McpServerContext extends McpServerInput {
  /** Failures since the last connection: the next attempt is `failures + 1`, the wait before it doubles. */
  failures: number;
  /** The live client while `connected` (and `closing`). */
  link?: Link;
  tools: readonly Tool[];
  /** Why the last attempt or connection failed. */
  reason?: string;
}

/** What the invoked actors are handed. */
export interface ConnectInput {
  server: string;
  attempt: number;
}
export interface WatchInput {
  server: string;
  link: Link;
}

/**
 * One MCP server connection; the machine is the connection's state. `connecting` runs the host's `connect` actor
 * (opens the transport, connects the SDK client, lists its tools), which answers `CONNECTED` or `FAILED`.
 * `connected` holds the client and its tools and runs `watch`, which says when the server announces a new tool list
 * or the connection drops. A failure waits the backoff (`retry`: doubling per failure, capped) in `failed`, then
 * connects again. `STOP` closes the client (`closing`, the host's `close`) and ends in `disabled`.
 */
export const mcpServerMachine = setup({
  types: {
    events: {} as McpServerEvent,
    input: {} as McpServerInput,
    context: {} as McpServerContext,
  },
  actors: {
    connect: fromCallback<McpServerEvent, ConnectInput>(() => undefined),
    watch: fromCallback<McpServerEvent, WatchInput>(() => undefined),
    close: fromPromise<void, Link>(async () => undefined),
  },
  actions: {
    failed: assign(({ context, event }) => ({
      failures: context.failures + 1,
      reason: event.type === 'FAILED' ? event.reason : 'failed',
      link: undefined,
      tools: [],
    })),
    released: assign({ link: undefined, tools: [] }),
  },
  delays: {
    retry: ({ context }) => retryDelay(context.backoff, context.failures),
  },
}).createMachine({
  id: 'mcp_server',
  context: ({ input }) => ({ ...input, failures: 0, tools: [] }),
  initial: 'idle',
  states: {
    idle: { on: { CONNECT: 'connecting', STOP: 'disabled' } },
    connecting: {
      invoke: {
        id: 'connect',
        src: 'connect',
        input: ({ context }) => ({ server: context.server, attempt: context.failures + 1 }),
      },
      on: {
        CONNECTED: {
          target: 'connected',
          actions: assign(({ event }) => ({ failures: 0, link: event.link, tools: event.tools, reason: undefined })),
        },
        FAILED: { target: 'failed', actions: 'failed' },
        STOP: 'disabled',
      },
    },
    connected: {
      invoke: {
        id: 'watch',
        src: 'watch',
        input: ({ context }) => ({ server: context.server, link: context.link as Link }),
      },
      on: {
        TOOLS_CHANGED: { actions: assign(({ event }) => ({ tools: event.tools })) },
        FAILED: { target: 'failed', actions: 'failed' },
        STOP: 'closing',
      },
    },
    failed: {
      after: { retry: 'connecting' },
      on: { STOP: 'disabled' },
    },
    closing: {
      invoke: {
        id: 'close',
        src: 'close',
        input: ({ context }) => context.link as Link,
        onDone: 'disabled',
        onError: 'disabled',
      },
    },
    disabled: { type: 'final', entry: 'released' },
  },
});

/** An MCP server actor's state, as `mcpServerMachine` names it. */
export type McpServerState = 'idle' | 'connecting' | 'connected' | 'failed' | 'closing' | 'disabled';

/**
 * How the machines page shows a server: `mcp:<name>` under the gateway, its tool count while connected and its
 * failures while it waits to retry. It ends (`disabled`) when the server is removed, switched off or the host stops.
 */
export const mcpServerBoard: Board<McpServerContext> = {
  id: (context) => `mcp:${context.server}`,
  shown: (context, value): ShownContext => {
    if (value === 'connected') return { tools: context.tools.length };
    return value === 'failed' ? { failures: context.failures } : {};
  },
  stopReason: () => 'stopped',
};

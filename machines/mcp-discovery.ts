import { assign, setup } from 'xstate';

/**
 * One machine per session, fed by the discovery search tools and the turn runner:
 * - `FOUND`: a search returned these hidden MCP tools (at most `max_search_results`).
 * - `TURN_ENDED`: a conversational turn of the session finished.
 * - `SESSION_CLEARED`: `/clear` succeeded; nothing stays unlocked.
 */
export type McpDiscoveryEvent =
  | { type: 'FOUND'; tools: string[] }
  | { type: 'TURN_ENDED' }
  | { type: 'SESSION_CLEARED' };

export interface McpDiscoveryContext {
  ttl: number;
  /** Unlocked tools and the turns each has left, counting the turn in progress. */
  unlocked: Record<string, number>;
  /** Tools hidden again by the last move, for the `mcp.hidden` event. */
  expired: string[];
}

export interface McpDiscoveryInput {
  ttl: number;
}

function countDown(unlocked: Record<string, number>): { unlocked: Record<string, number>; expired: string[] } {
  const left = Object.entries(unlocked).map(([tool, turns]) => [tool, turns - 1] as const);
  return {
    unlocked: Object.fromEntries(left.filter(([, turns]) => turns > 0)),
    expired: left.filter(([, turns]) => turns <= 0).map(([tool]) => tool),
  };
}

const foundTools = (event: McpDiscoveryEvent): string[] => (event.type === 'FOUND' ? event.tools : []);

/**
 * Per tool: hidden ↔ unlocked. A found tool is unlocked for `ttl` conversational turns, the turn it
 * was found in counting as the first; finding it again starts its count afresh. The host provides
 * `announceUnlocked` and `announceHidden` (they publish `mcp.unlocked` and `mcp.hidden`).
 */
export const mcpDiscoveryMachine = setup({
  types: {
    context: {} as McpDiscoveryContext,
    events: {} as McpDiscoveryEvent,
    input: {} as McpDiscoveryInput,
  },
  actions: {
    unlock: assign(({ context, event }) => ({
      unlocked: { ...context.unlocked, ...Object.fromEntries(foundTools(event).map((tool) => [tool, context.ttl])) },
      expired: [],
    })),
    countTurn: assign(({ context }) => countDown(context.unlocked)),
    hideAll: assign(({ context }) => ({ unlocked: {}, expired: Object.keys(context.unlocked) })),
    announceUnlocked: (_, _params: { tools: string[]; ttl: number }) => undefined,
    announceHidden: (_, _params: { tools: string[] }) => undefined,
  },
  guards: {
    foundSome: ({ event }) => foundTools(event).length > 0,
    lastTurnOfAll: ({ context }) => Object.values(context.unlocked).every((turns) => turns <= 1),
    lastTurnOfSome: ({ context }) => Object.values(context.unlocked).some((turns) => turns <= 1),
  },
}).createMachine({
  id: 'mcpDiscovery',
  context: ({ input }) => ({ ttl: input.ttl, unlocked: {}, expired: [] }),
  initial: 'allHidden',
  states: {
    allHidden: {
      on: {
        FOUND: {
          guard: 'foundSome',
          target: 'someUnlocked',
          actions: [
            'unlock',
            {
              type: 'announceUnlocked',
              params: ({ context, event }) => ({ tools: foundTools(event), ttl: context.ttl }),
            },
          ],
        },
      },
    },
    someUnlocked: {
      on: {
        FOUND: {
          guard: 'foundSome',
          actions: [
            'unlock',
            {
              type: 'announceUnlocked',
              params: ({ context, event }) => ({ tools: foundTools(event), ttl: context.ttl }),
            },
          ],
        },
        TURN_ENDED: [
          {
            guard: 'lastTurnOfAll',
            target: 'allHidden',
            actions: ['countTurn', { type: 'announceHidden', params: ({ context }) => ({ tools: context.expired }) }],
          },
          {
            guard: 'lastTurnOfSome',
            actions: ['countTurn', { type: 'announceHidden', params: ({ context }) => ({ tools: context.expired }) }],
          },
          { actions: 'countTurn' },
        ],
        SESSION_CLEARED: {
          target: 'allHidden',
          actions: ['hideAll', { type: 'announceHidden', params: ({ context }) => ({ tools: context.expired }) }],
        },
      },
    },
  },
});

/** The tools a turn may show now, from a snapshot's context. */
export function unlockedTools(context: McpDiscoveryContext): Set<string> {
  return new Set(Object.keys(context.unlocked));
}

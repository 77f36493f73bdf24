import type { ToolSpec } from '../adapters/providers/provider.js';
import type { DiscoveryHooks } from '../adapters/mcp/index.js';
import type { McpManager } from './mcp/index.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { Config } from '../store/config/index.js';
import { profileAllows } from './prompt-builder.js';
import type { Toolbox } from './turn-actors.js';

type TurnProfile = Config['agents']['defaults']['turn_profile'];

function specsFor(tools: ToolRegistry, names: readonly string[]): ToolSpec[] {
  const wanted = new Set(names);
  return tools.specs().filter((s) => wanted.has(s.name));
}

/** Tool specs are computed on the first model call that needs them, once per toolbox. */
function toolboxOf(registry: ToolRegistry, names: string[]): Toolbox {
  let specs: ToolSpec[] | undefined;
  return { registry, names, specs: () => (specs ??= specsFor(registry, names)) };
}

export interface ToolboxParts {
  registry: ToolRegistry;
  /** The agent's own tools (its AGENT.md `tools` applied). */
  own: readonly string[];
  profile: TurnProfile | undefined;
  /** The MCP servers' tools the session sees now, when MCP is on. */
  mcp?: {
    manager: McpManager;
    /** The AGENT.md `mcpServers` (all servers when unset). */
    servers: readonly string[] | undefined;
    /** What the session's discovery has unlocked. */
    unlocked: ReadonlySet<string>;
    /** Where a discovery search reports what it found. */
    found: DiscoveryHooks['found'];
  };
}

/**
 * The tools of one turn of an agent: its own, its visible MCP tools (the deferred ones once discovery unlocked them)
 * and the discovery searches, under the turn profile. A session asks before each model call; `tern tool` asks once.
 */
export function turnToolbox({ registry, own, profile, mcp }: ToolboxParts): Toolbox {
  const extra = mcp
    ? [...mcp.manager.tools(mcp.servers, mcp.unlocked), ...mcp.manager.searchTools(mcp.servers, mcp.found)]
    : [];
  const names = [...own, ...extra.map((t) => t.name)].filter((name) => profileAllows(profile, 'tools', name));
  return toolboxOf(extra.length > 0 ? registry.overlay(extra) : registry, names);
}

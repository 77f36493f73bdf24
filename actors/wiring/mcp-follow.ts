import { mcpOptionsFromConfig } from '../../adapters/mcp/index.js';
import type { McpManager } from '../mcp/index.js';
import type { LoadedConfig } from '../../store/config/index.js';

/**
 * Keeps the running MCP servers in line with the config as a hot reload leaves it: each call after the `tools.mcp`
 * block was replaced hands the new block to the manager, which stops, restarts or starts only the servers whose
 * entry changed. Calls wait for the change in hand (one at a time, in order), so the turn that follows a reload sees
 * the servers' tools. A block the manager refuses keeps the servers as they are, and says why.
 */
export function followMcp(
  manager: McpManager,
  loaded: LoadedConfig,
  logError: (line: string) => void,
): () => Promise<void> {
  let block = loaded.config.tools.mcp;
  let applying = Promise.resolve();
  return () => {
    const now = loaded.config.tools.mcp;
    if (now === block) return applying;
    block = now;
    applying = applying.then(() =>
      manager.reconfigure(mcpOptionsFromConfig(now)).catch((error: unknown) => {
        logError(`tools.mcp not reloaded; the running servers stay: ${(error as Error).message}`);
      }),
    );
    return applying;
  };
}

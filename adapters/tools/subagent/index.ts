import type { ToolRegistry } from '../registry.js';
import type { SubagentPort } from './port.js';
import { spawnStatusTool } from './spawn-status-tool.js';
import { spawnTool } from './spawn-tool.js';
import { subagentTool } from './subagent-tool.js';

export type { SubagentPort, SubagentRequest, TaskStatus, TaskView } from './port.js';
export { describeTask } from './spawn-status-tool.js';

/**
 * `spawn`, `spawn_status` and `subagent` (each unless `tools.<name>.enabled` is false), reaching the subagent actors
 * through `port`.
 */
export function registerSubagentTools(
  registry: ToolRegistry,
  port: SubagentPort,
  enabled: { spawn: boolean; spawn_status: boolean; subagent: boolean },
): void {
  if (enabled.spawn) registry.register(spawnTool(port));
  if (enabled.spawn_status) registry.register(spawnStatusTool(port));
  if (enabled.subagent) registry.register(subagentTool(port));
}

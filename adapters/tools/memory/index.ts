import type { ToolRegistry } from '../registry.js';
import { memoryGetTool } from './memory-get.js';
import { memorySearchTool } from './memory-search.js';
import type { RecallPort } from './port.js';

export type { RecallPort } from './port.js';

export function registerMemoryTools(registry: ToolRegistry, port: RecallPort): void {
  registry.register(memorySearchTool(port)).register(memoryGetTool(port));
}

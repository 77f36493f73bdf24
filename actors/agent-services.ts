import type { McpManager } from '../adapters/mcp/index.js';
import type { ModelRouter } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { Bus } from '../bus/index.js';
import type { Config } from '../store/config/index.js';
import type { EventStore } from '../store/log/event-store.js';
import type { SkillInfo } from '../store/skills.js';
import type { AgentDoc } from '../store/workspace.js';
import type { PromptBuilder } from './prompt-builder.js';
import type { TodoTool } from './todo-tool.js';

/** What an agent's sessions use: the bus and the log, the model router, tools, prompt files and skills. */
export interface AgentServices {
  agent: string;
  bus: Bus;
  log: EventStore;
  router: ModelRouter;
  tools: ToolRegistry;
  todo: TodoTool;
  prompt: PromptBuilder;
  config: () => Config;
  skills: () => SkillInfo[];
  /** AGENT.md, read again when it changed. */
  agentDoc: () => AgentDoc;
  /** Tool names this agent exposes (the `tools` of its AGENT.md applied). */
  toolNames: (doc: AgentDoc) => string[];
  workspace: string;
  now: () => Date;
  /** MCP servers and discovery; absent when `tools.mcp.enabled` is false. */
  mcp?: { manager: McpManager; ttl: number };
  /** Speech to text with the configured transcription model; absent when none is configured. */
  transcribe?: (path: string, mime: string) => Promise<{ text: string; modelName: string }>;
  /** Fetches a file a user sent (a voice message) from its channel and saves it; absent outside the gateway. */
  fetchMedia?: (channel: string, fileId: string, messageId: string, name: string) => Promise<string>;
}

import type { McpManager } from './mcp/index.js';
import type { ModelRouter } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { TaskView } from '../adapters/tools/subagent/index.js';
import type { Bus } from '../bus/index.js';
import type { Config } from '../store/config/index.js';
import type { EventStore } from '../store/log/event-store.js';
import type { SkillInfo } from '../store/skills.js';
import type { AgentDoc } from '../store/workspace.js';
import type { BudgetGuard } from './budget.js';
import type { HookEngine } from './hooks/engine.js';
import type { PluginHost } from './plugins/plugin-host.js';
import type { PromptBuilder } from './prompt-builder.js';
import type { TodoTool } from './todo-tool.js';
import type { ModelChoice } from './wiring/agent-model.js';

/** The subagent tasks started in a conversation (`actors/subagents`), as its chat commands reach them. */
export interface SessionSubagents {
  /** Whether a turn of `session` (a session id) may start no deeper subagent: `max_depth` is reached. */
  atDepthLimit(session: string): boolean;
  /** Cancels every task under the conversation `root` (a session id); returns how many. */
  cancelUnder(root: string, reason: string): number;
  /** The tasks under `root` that are still running, oldest first. */
  runningUnder(root: string): TaskView[];
}

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
  /** The model of a turn of this agent; `delegatedBy` is set for a subagent's turn. */
  model: (doc: AgentDoc, delegatedBy?: string) => ModelChoice;
  /** The agent registry of the prompt for a turn offering these tools (none without spawnable peers). */
  peers?: (tools: readonly string[]) => string | undefined;
  subagents?: SessionSubagents;
  /** Hooks and approvals: each turn asks it for its hook pipeline. */
  hooks?: HookEngine;
  /** Plugin packages: their states for `/list plugins`, and the chat commands they add. */
  plugins?: PluginHost;
  /** The runtime's data workspace (cron jobs live there); an agent's files are in its sandbox. */
  workspace: string;
  now: () => Date;
  /**
   * MCP servers and discovery; absent when `tools.mcp.enabled` was false at the start. `follow` applies a reloaded
   * `tools.mcp` block to the running servers and resolves once they are in line with it (each turn awaits it first).
   */
  mcp?: { manager: McpManager; ttl: number; follow: () => Promise<void> };
  /** Speech to text with the configured transcription model; absent when none is configured. */
  transcribe?: (path: string, mime: string) => Promise<{ text: string; modelName: string }>;
  /** Spending limits, checked before each turn starts. */
  budget?: BudgetGuard;
  /** Fetches a file a user sent (a voice message) from its channel and saves it; absent outside the gateway. */
  fetchMedia?: (channel: string, fileId: string, messageId: string, name: string) => Promise<string>;
}

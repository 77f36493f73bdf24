import type { EventDraft } from '../../bus/index.js';
import { McpManager, mcpOptionsFromConfig } from '../../adapters/mcp/index.js';
import { transcribeFile } from '../../adapters/providers/transcription.js';
import { buildTools } from '../../adapters/tools/build-tools.js';
import { DEFAULT_FILTER, type FilterOptions, type SendFunction } from '../../adapters/tools/options.js';
import { imageGenerateTool } from '../../adapters/tools/media/image-generate.js';
import type { ToolRegistry } from '../../adapters/tools/registry.js';
import type { LoadedConfig } from '../../store/config/index.js';
import type { AgentDoc } from '../../store/workspace.js';
import { TodoTool } from '../todo-tool.js';
import { modelEntries } from './models.js';
import { toolsOptions } from './tools.js';

/** The tools of a process that runs turns: one registry for every agent, with the todo plans and MCP servers. */
export interface RuntimeTools {
  tools: ToolRegistry;
  todo: TodoTool;
  /** Absent when `tools.mcp.enabled` is false. */
  mcp: McpManager | undefined;
  /** The tools an AGENT.md lets its agent use (its `tools` list applied). */
  toolNames: (doc: AgentDoc) => string[];
  /** Speech to text with the configured transcription model; absent when none is configured. */
  transcribe?: (path: string, mime: string) => Promise<{ text: string; modelName: string }>;
}

export interface RuntimeToolsOptions {
  /** Where tool refusals are logged (error level). */
  logError: (line: string) => void;
  /** How the `message` and `send_file` tools reach a channel; without it they are not offered. */
  send?: SendFunction;
}

/**
 * MCP servers connect in the background: a slow or dead server never holds up the start. A config the
 * manager cannot run (both discovery searches off, oauth with an Authorization header) throws here.
 */
function startMcp(loaded: LoadedConfig, env: NodeJS.ProcessEnv, filter: FilterOptions, report: (draft: EventDraft) => void): McpManager | undefined {
  if (!loaded.config.tools.mcp.enabled) return undefined;
  const manager = new McpManager({ options: mcpOptionsFromConfig(loaded.config.tools.mcp), workspace: loaded.workspace, home: loaded.home, env, filter, report });
  manager.start();
  return manager;
}

/**
 * The tools an AGENT.md lets its agent use. The registry is complete once the runtime is built, so the names
 * depend on the document alone: the same document (unchanged file) gives the same list.
 */
function toolNamesOf(tools: ToolRegistry): (doc: AgentDoc) => string[] {
  let last: { doc: AgentDoc; names: string[] } | undefined;
  return (doc) => {
    if (last?.doc !== doc) {
      const allowed = doc.frontmatter.tools;
      last = { doc, names: tools.list().map((t) => t.name).filter((name) => !allowed || allowed.includes(name)) };
    }
    return last.names;
  };
}

/**
 * Every tool a turn can be given, wired from the config: the built-in tools under the config's sandbox, filter and
 * exec policy, `todo`, `image_generate` (with `agents.defaults.image_model`) and the MCP servers. The runtime and
 * `tern tool` both build their tools here, so the command shows exactly what a turn has.
 */
export function wireRuntimeTools(loaded: LoadedConfig, env: NodeJS.ProcessEnv, report: (draft: EventDraft) => void, options: RuntimeToolsOptions): RuntimeTools {
  const { config, workspace, home } = loaded;
  const toolOptions = toolsOptions(config, workspace, home, env, (entry) => options.logError(JSON.stringify(entry)), options.send);
  const tools = buildTools(toolOptions);
  const todo = new TodoTool((draft) => report(draft));
  if (config.tools.todo.enabled) tools.register(todo);
  const entries = modelEntries(config);
  const entryNamed = (name: string | undefined) => entries.find((e) => e.model_name === name && e.enabled !== false);
  const imageEntry = entryNamed(config.agents.defaults.image_model);
  if (imageEntry) tools.register(imageGenerateTool(imageEntry, workspace));
  const transcriptionEntry = entryNamed(config.agents.defaults.transcription_model);
  const mcp = startMcp(loaded, env, { ...DEFAULT_FILTER, ...toolOptions.filter }, report);
  return {
    tools,
    todo,
    mcp,
    toolNames: toolNamesOf(tools),
    ...(transcriptionEntry
      ? { transcribe: async (path: string, mime: string) => ({ text: await transcribeFile(transcriptionEntry, path, mime), modelName: transcriptionEntry.model_name }) }
      : {}),
  };
}

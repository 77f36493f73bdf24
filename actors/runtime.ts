import type { Bus, EventDraft } from '../bus/index.js';
import { McpManager, mcpOptionsFromConfig } from '../adapters/mcp/index.js';
import { transcribeFile } from '../adapters/providers/transcription.js';
import { buildTools } from '../adapters/tools/build-tools.js';
import { DEFAULT_FILTER, type FilterOptions, type SendFunction } from '../adapters/tools/options.js';
import { imageGenerateTool } from '../adapters/tools/media/image-generate.js';
import { registerSkillTools } from '../adapters/tools/skills/register.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { LoadedConfig } from '../store/config/index.js';
import type { EventLog } from '../store/log/event-log.js';
import { SkillCatalog, skillRoots } from '../store/skills.js';
import { WorkspaceFiles, type AgentDoc } from '../store/workspace.js';
import { filterSecrets } from '../adapters/tools/output/secret-filter.js';
import { AgentActor } from './agent.js';
import { EvolutionActor } from './evolution/evolution-actor.js';
import { realScheduler, type Scheduler } from './gateway/scheduler.js';
import { HookEngine } from './hooks/engine.js';
import type { HookLog } from './hooks/hook-set.js';
import { PluginHost } from './plugins/plugin-host.js';
import { PromptBuilder } from './prompt-builder.js';
import { RuntimeCore } from './runtime-core.js';
import { TodoTool } from './todo-tool.js';
import { modelEntries } from './wiring/models.js';
import { ReloadableRouter } from './wiring/reloadable-router.js';
import { toolsOptions } from './wiring/tools.js';

export interface RuntimeOptions extends AgentOptions {
  loaded: LoadedConfig;
  /** The command that runs it, recorded in `runtime.started`. */
  command: string;
}

/** What agents, tools and models need besides the log and the bus. */
export interface AgentOptions {
  env: NodeJS.ProcessEnv;
  now?: () => Date;
  /** Where tool refusals are logged (error level). */
  logError?: (line: string) => void;
  /** How the `message` and `send_file` tools reach a channel; without it they are not offered. */
  send?: SendFunction;
  /** Where hooks report (a hook that timed out, died, was restarted); warnings and errors go to `logError` by default. */
  log?: HookLog;
  /** The clock of evolution's scheduled runs; real time by default. */
  evolutionClock?: Scheduler;
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
 * The tools an AGENT.md lets its agent use: the same document (unchanged file) and the same registry (no plugin
 * added a tool since) give the same list.
 */
function toolNamesOf(tools: ToolRegistry): (doc: AgentDoc) => string[] {
  let last: { doc: AgentDoc; revision: number; names: string[] } | undefined;
  return (doc) => {
    if (last?.doc !== doc || last.revision !== tools.revision) {
      const allowed = doc.frontmatter.tools;
      last = { doc, revision: tools.revision, names: tools.list().map((t) => t.name).filter((name) => !allowed || allowed.includes(name)) };
    }
    return last.names;
  };
}

/** Everything a process that runs turns needs: the log, the bus, the model router, tools and agents. */
export class Runtime {
  private readonly agents = new Map<string, AgentActor>();

  private constructor(
    private readonly core: RuntimeCore,
    readonly router: ReloadableRouter,
    readonly tools: ToolRegistry,
    private readonly services: Omit<ConstructorParameters<typeof AgentActor>[1], 'agent'>,
    readonly mcp: McpManager | undefined,
    /** Process hooks, plugins' hooks, the observers and the approval desk. */
    readonly hooks: HookEngine,
    readonly plugins: PluginHost,
    /** The prompt files and skill catalog: they watch folders until closed. */
    private readonly watched: ReadonlyArray<{ close(): void }>,
    readonly evolution: EvolutionActor,
  ) {}

  get loaded(): LoadedConfig {
    return this.core.loaded;
  }

  get log(): EventLog {
    return this.core.log;
  }

  get bus(): Bus {
    return this.core.bus;
  }

  get cutOffTurns(): string[] {
    return this.core.cutOffTurns;
  }

  static start(options: RuntimeOptions): Runtime {
    const core = RuntimeCore.open(options.loaded, options.command);
    try {
      return Runtime.on(core, options);
    } catch (error) {
      core.log.close();
      throw error;
    }
  }

  /** Agents, tools and models on an open log and bus; closing the runtime closes the core too. */
  static on(core: RuntimeCore, options: AgentOptions): Runtime {
    const { loaded, bus, log } = core;
    const { env } = options;
    const router = new ReloadableRouter(loaded.config, { report: (draft) => bus.publish(draft) });
    const logError = options.logError ?? ((line: string) => process.stderr.write(`${line}\n`));
    const toolOptions = toolsOptions(loaded.config, loaded.workspace, loaded.home, env, (entry) => logError(JSON.stringify(entry)), options.send);
    const tools = buildTools(toolOptions);
    const todo = new TodoTool((draft) => bus.publish(draft));
    if (loaded.config.tools.todo.enabled) tools.register(todo);
    registerSkillTools(tools, loaded.config.tools.skills, loaded);
    const entries = modelEntries(loaded.config);
    const entryNamed = (name: string | undefined) => entries.find((e) => e.model_name === name && e.enabled !== false);
    const imageEntry = entryNamed(loaded.config.agents.defaults.image_model);
    if (imageEntry) tools.register(imageGenerateTool(imageEntry, loaded.workspace));
    const transcriptionEntry = entryNamed(loaded.config.agents.defaults.transcription_model);
    const files = new WorkspaceFiles(loaded.workspace);
    const mcp = startMcp(loaded, env, { ...DEFAULT_FILTER, ...toolOptions.filter }, (draft) => bus.publish(draft));
    const catalog = new SkillCatalog(skillRoots(loaded.workspace, loaded.home, env));
    const filter = { ...DEFAULT_FILTER, ...toolOptions.filter };
    const hookLog: HookLog = options.log ?? ((level, message, fields) => (level === 'info' ? undefined : logError(JSON.stringify({ level, message, ...fields }))));
    const hooks = new HookEngine({ bus, config: () => loaded.config, home: loaded.home, env, log: hookLog, clean: (text) => filterSecrets(text, filter) });
    const plugins = new PluginHost({ bus, config: () => loaded.config, home: loaded.home, env, tools, hooks, log: hookLog });
    const services = {
      bus,
      log,
      router,
      tools,
      todo,
      prompt: new PromptBuilder(files),
      config: () => loaded.config,
      skills: () => catalog.list(),
      agentDoc: () => files.agent(),
      toolNames: toolNamesOf(tools),
      hooks,
      plugins,
      workspace: loaded.workspace,
      now: options.now ?? (() => new Date()),
      ...(mcp ? { mcp: { manager: mcp, ttl: loaded.config.tools.mcp.discovery.ttl } } : {}),
      ...(transcriptionEntry
        ? { transcribe: async (path: string, mime: string) => ({ text: await transcribeFile(transcriptionEntry, path, mime), modelName: transcriptionEntry.model_name }) }
        : {}),
    };
    // Plugins load in the background: the gateway builds this runtime once it is ready, so they come after `/ready`.
    void plugins.load();
    const evolution = new EvolutionActor({ bus, log, router, config: () => loaded.config, workspace: loaded.workspace, scheduler: options.evolutionClock ?? realScheduler, logError });
    return new Runtime(core, router, tools, services, mcp, hooks, plugins, [files, catalog], evolution);
  }

  /** The agent with this id; without one, the default agent (marked `default`, else the first, else `main`). */
  agent(id?: string): AgentActor {
    const list = this.loaded.config.agents.list;
    const chosen = id ?? list.find((a) => a.default)?.id ?? list[0]?.id ?? 'main';
    let agent = this.agents.get(chosen);
    if (!agent) {
      agent = new AgentActor(chosen, { ...this.services, agent: chosen });
      this.agents.set(chosen, agent);
    }
    return agent;
  }

  /** Ends running turns as aborted, flushes the log and closes it. */
  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.stop('the process is shutting down')));
    await this.evolution.stop();
    await this.mcp?.stop();
    await this.plugins.close();
    await this.hooks.close();
    for (const watched of this.watched) watched.close();
    await this.core.close();
  }
}

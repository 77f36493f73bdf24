import type { Subscription } from 'rxjs';
import type { Bus, EventDraft } from '../bus/index.js';
import { mcpOptionsFromConfig } from '../adapters/mcp/index.js';
import { McpManager } from './mcp/index.js';
import { transcribeFile } from '../adapters/providers/transcription.js';
import { DEFAULT_FILTER, type FilterOptions, type SendFunction } from '../adapters/tools/options.js';
import { imageGenerateTool } from '../adapters/tools/media/image-generate.js';
import { sendTtsTool } from '../adapters/tools/media/send-tts.js';
import { filterSecrets } from '../adapters/tools/output/secret-filter.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import { runtimeSkillTools } from '../adapters/tools/skills/register.js';
import { registerSubagentTools } from '../adapters/tools/subagent/index.js';
import { agentBoard } from '../machines/agent.js';
import { sessionBoard } from '../machines/session.js';
import { turnBoard } from '../machines/turn.js';
import type { LoadedConfig } from '../store/config/index.js';
import { KeyRotationFile } from '../store/key-rotation.js';
import type { EventStore } from '../store/log/event-store.js';
import { AgentActor } from './agent.js';
import type { AgentServices } from './agent-services.js';
import { BoardInspector } from './board.js';
import { BudgetGuard } from './budget.js';
import { EvolutionActor } from './evolution/evolution-actor.js';
import { realScheduler, type Scheduler } from './scheduler.js';
import { HookEngine } from './hooks/engine.js';
import type { HookLog } from './hooks/hook-set.js';
import { PluginHost } from './plugins/plugin-host.js';
import { ask, type AskOptions, type SessionReply, type SessionRequest } from './routing.js';
import { RuntimeCore } from './runtime-core.js';
import { sessionHost } from './subagents/session-host.js';
import { Subagents } from './subagents/subagents.js';
import { TodoTool } from './todo-tool.js';
import { agentModel } from './wiring/agent-model.js';
import { LiveRecall } from '../store/memory/live-recall.js';
import { registerMemoryTools } from '../adapters/tools/memory/index.js';
import { AgentDirectory } from './wiring/agent-setup.js';
import { embedderOf } from './wiring/embedder.js';
import { recallPort } from './wiring/recall-port.js';
import { modelEntries } from './wiring/models.js';
import { followMcp } from './wiring/mcp-follow.js';
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
  /** Fetches a file a user sent from its channel (the gateway's channels); see `AgentServices.fetchMedia`. */
  fetchMedia?: AgentServices['fetchMedia'];
  /** Sessions an agent keeps in memory (least recently used idle ones leave beyond it). */
  sessionLimit?: number;
  /**
   * Where hooks report (a hook that timed out, died, was restarted); warnings and errors go to `logError` by default.
   */
  log?: HookLog;
  /** The clock of evolution's scheduled runs; real time by default. */
  evolutionClock?: Scheduler;
}

/** What every agent of a runtime shares; the rest is its own (`AgentDirectory`). */
type SharedServices = Omit<
  AgentServices,
  'agent' | 'tools' | 'prompt' | 'skills' | 'agentDoc' | 'toolNames' | 'model' | 'peers'
>;

/**
 * MCP servers connect in the background: a slow or dead server never holds up the start. A config the
 * manager cannot run (both discovery searches off, oauth with an Authorization header) throws here.
 */
function startMcp(
  loaded: LoadedConfig,
  env: NodeJS.ProcessEnv,
  filter: FilterOptions,
  report: (draft: EventDraft) => void,
): McpManager | undefined {
  if (!loaded.config.tools.mcp.enabled) return undefined;
  const manager = new McpManager({
    options: mcpOptionsFromConfig(loaded.config.tools.mcp),
    workspace: loaded.workspace,
    home: loaded.home,
    env,
    filter,
    report,
  });
  manager.start();
  return manager;
}

/**
 * Everything a process that runs turns needs: the log, the bus, the model router, tools, agents and their subagents.
 * It consumes the `sessions` work (`message.routed`) and the control events `turn.stop.requested`,
 * `turn.abort.requested` and `session.release.requested`, and hands each to its agent's actor.
 */
export class Runtime {
  private readonly agents = new Map<string, AgentActor>();
  private readonly board: BoardInspector;
  /** Aborts the asks still waiting when the runtime closes: their answers will not come. */
  private readonly closing = new AbortController();
  private readonly inputs: Subscription[];
  private closed: Promise<void> | undefined;

  private constructor(
    private readonly core: RuntimeCore,
    readonly router: ReloadableRouter,
    private readonly directory: AgentDirectory,
    private readonly shared: SharedServices,
    readonly mcp: McpManager | undefined,
    readonly subagents: Subagents,
    /** Process hooks, plugins' hooks, the observers and the approval desk. */
    readonly hooks: HookEngine,
    readonly plugins: PluginHost,
    /** Learning records, skill drafts and decisions (`evolution`). */
    readonly evolution: EvolutionActor,
    /** `memory_search` and `memory_get` over the memory files and the log. */
    readonly recall: LiveRecall,
    private readonly sessionLimit: number | undefined,
  ) {
    const { bus } = core;
    this.board = new BoardInspector(bus, { agent: agentBoard, session: sessionBoard, turn: turnBoard });
    this.inputs = [
      bus.work('sessions').subscribe((message) => this.agent(message.agent).send({ type: 'MESSAGE', message })),
      bus
        .on('turn.stop.requested')
        .subscribe((request) => this.agent(request.agent).send({ type: 'STOP_TURN', request })),
      bus
        .on('turn.abort.requested')
        .subscribe((request) => this.agent(request.agent).send({ type: 'ABORT_TURN', request })),
      bus
        .on('session.release.requested')
        .subscribe((request) => this.agent(request.agent).send({ type: 'RELEASE', request })),
    ];
  }

  get loaded(): LoadedConfig {
    return this.core.loaded;
  }

  get log(): EventStore {
    return this.core.log;
  }

  get bus(): Bus {
    return this.core.bus;
  }

  get cutOffTurns(): string[] {
    return this.core.cutOffTurns;
  }

  /** The default agent's tools. */
  get tools(): ToolRegistry {
    return this.directory.parts(this.directory.defaultId).tools;
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
    const config = () => loaded.config;
    const now = options.now ?? (() => new Date());
    const logError = options.logError ?? ((line: string) => process.stderr.write(`${line}\n`));
    const rotation = new KeyRotationFile(loaded.workspace, logError);
    const router = new ReloadableRouter(loaded.config, { report: (draft) => bus.publish(draft), rotation });
    const todo = new TodoTool((draft) => bus.publish(draft));
    const entries = modelEntries(loaded.config);
    const entryNamed = (name: string | undefined) => entries.find((e) => e.model_name === name && e.enabled !== false);
    const imageEntry = entryNamed(loaded.config.agents.defaults.image_model);
    // The peer runtime names its transcription model in `voice.model_name`.
    const transcriptionEntry = entryNamed(
      loaded.config.agents.defaults.transcription_model ?? loaded.config.voice.model_name,
    );
    // `send_tts` speaks with `voice.tts_model_name`, else (as the peer runtime looks) the first entry with "tts" in it.
    const ttsName = loaded.config.voice.tts_model_name;
    const speechEntry = ttsName
      ? entryNamed(ttsName)
      : entries.find((e) => e.enabled !== false && e.model.toLowerCase().includes('tts'));
    const recall = new LiveRecall({
      workspace: loaded.workspace,
      ...(core.scratchLog ? {} : { live: { log, bus } }),
      report: logError,
      embedder: () => embedderOf(config()),
    });
    const subagents = new Subagents({
      bus,
      config,
      now: () => now().getTime(),
      logError,
      host: sessionHost(bus),
      ...(options.send ? { send: options.send } : {}),
    });
    const registerSkillTools = runtimeSkillTools(loaded.home);
    const directory = new AgentDirectory({
      loaded,
      env,
      logError,
      send: options.send,
      addTools: (registry, workspace) => {
        const tools = loaded.config.tools;
        if (tools.todo.enabled) registry.register(todo);
        if (imageEntry) registry.register(imageGenerateTool(imageEntry, workspace, options.send));
        if (speechEntry && tools.send_tts.enabled && options.send)
          registry.register(sendTtsTool(speechEntry, workspace, options.send));
        registerSubagentTools(registry, subagents, {
          spawn: tools.spawn.enabled,
          spawn_status: tools.spawn_status.enabled,
          subagent: tools.subagent.enabled,
        });
        registerSkillTools(registry, tools.skills, workspace);
        registerMemoryTools(registry, recallPort(recall, config));
      },
    });
    const filter = {
      ...DEFAULT_FILTER,
      ...toolsOptions(loaded.config, loaded.workspace, loaded.home, env, () => undefined).filter,
    };
    const mcp = startMcp(loaded, env, filter, (draft) => bus.publish(draft));
    const hookLog: HookLog =
      options.log ??
      ((level, message, fields) =>
        level === 'info' ? undefined : logError(JSON.stringify({ level, message, ...fields })));
    const hooks = new HookEngine({
      bus,
      config,
      home: loaded.home,
      env,
      log: hookLog,
      clean: (text) => filterSecrets(text, filter),
    });
    // A plugin's tools join every agent's registry (`AgentDirectory.pluginTools`).
    const plugins = new PluginHost({
      bus,
      config,
      home: loaded.home,
      env,
      tools: directory.pluginTools,
      hooks,
      log: hookLog,
    });
    const shared: SharedServices = {
      bus,
      log,
      router,
      todo,
      config,
      workspace: loaded.workspace,
      now,
      subagents,
      hooks,
      plugins,
      budget: new BudgetGuard(log, bus, config, now),
      ...(mcp
        ? {
            mcp: { manager: mcp, ttl: loaded.config.tools.mcp.discovery.ttl, follow: followMcp(mcp, loaded, logError) },
          }
        : {}),
      ...(transcriptionEntry
        ? {
            transcribe: async (path: string, mime: string) => ({
              text: await transcribeFile(transcriptionEntry, path, mime),
              modelName: transcriptionEntry.model_name,
            }),
          }
        : {}),
      ...(options.fetchMedia ? { fetchMedia: options.fetchMedia } : {}),
    };
    const evolution = new EvolutionActor({
      bus,
      log,
      router,
      config,
      workspace: loaded.workspace,
      scheduler: options.evolutionClock ?? realScheduler,
      logError,
    });
    let runtime: Runtime;
    try {
      runtime = new Runtime(
        core,
        router,
        directory,
        shared,
        mcp,
        subagents,
        hooks,
        plugins,
        evolution,
        recall,
        options.sessionLimit,
      );
      directory.parts(directory.defaultId);
    } catch (error) {
      void evolution.stop();
      recall.close();
      directory.close();
      throw error;
    }
    // Plugins load in the background: the gateway builds this runtime once it is ready, so they come after `/ready`.
    void plugins.load();
    return runtime;
  }

  /** The id of the default agent: marked `default`, else the first, else `main`. */
  defaultAgent(): string {
    return this.directory.defaultId;
  }

  /** The actor of an agent, started with its first message. */
  agent(id: string = this.defaultAgent()): AgentActor {
    let agent = this.agents.get(id);
    if (!agent) {
      agent = new AgentActor(id, this.servicesOf(id), this.board, this.sessionLimit);
      this.agents.set(id, agent);
    }
    return agent;
  }

  /** The shared services with the agent's own workspace, files, skills, tools, model and agent registry. */
  private servicesOf(id: string): AgentServices {
    const parts = this.directory.parts(id);
    return {
      ...this.shared,
      agent: id,
      get tools() {
        return parts.tools;
      },
      prompt: parts.prompt,
      skills: parts.skills,
      agentDoc: parts.agentDoc,
      toolNames: parts.toolNames,
      model: (doc, delegatedBy) => agentModel(this.loaded.config, id, doc, delegatedBy),
      peers: (tools) => this.directory.registryFor(id, tools),
    };
  }

  /** Applies a reloaded `tools.mcp` block to the running servers now (each turn does so anyway before it starts). */
  followMcp(): Promise<void> {
    return this.shared.mcp?.follow() ?? Promise.resolve();
  }

  /** Hands a message to its session and resolves with its answer (request and answer over the bus). */
  ask(request: SessionRequest, options: AskOptions = {}): Promise<SessionReply> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.closing.signal]) : this.closing.signal;
    return ask(this.core.bus, request, { ...options, signal });
  }

  /** No new message starts from now on; resolves once no session handles one. */
  async drain(): Promise<void> {
    for (const agent of this.agents.values()) agent.send({ type: 'DRAIN' });
    await Promise.all([...this.agents.values()].map((a) => a.settled()));
  }

  /**
   * Running subagent tasks get `drainMs` (default none) and are then canceled with the reason; running turns end as
   * aborted; the log is flushed and closed.
   */
  close(options: { drainMs?: number; reason?: string } = {}): Promise<void> {
    this.closed ??= this.closeOnce(options.drainMs ?? 0, options.reason ?? 'the process is shutting down');
    return this.closed;
  }

  private async closeOnce(drainMs: number, reason: string): Promise<void> {
    await this.subagents.stop(drainMs, reason);
    this.inputs.forEach((s) => s.unsubscribe());
    this.closing.abort('the runtime closed');
    await Promise.all([...this.agents.values()].map((a) => a.stop(reason)));
    await this.evolution.stop();
    await this.mcp?.stop();
    await this.plugins.close();
    await this.hooks.close();
    this.directory.close();
    this.recall.close();
    await this.core.close();
  }
}

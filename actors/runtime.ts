import type { Bus } from '../bus/index.js';
import type { McpManager } from '../adapters/mcp/index.js';
import type { SendFunction } from '../adapters/tools/options.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { LoadedConfig } from '../store/config/index.js';
import type { EventLog } from '../store/log/event-log.js';
import { SkillCatalog, skillRoots } from '../store/skills.js';
import { WorkspaceFiles } from '../store/workspace.js';
import { AgentActor } from './agent.js';
import { BudgetGuard } from './budget.js';
import { PromptBuilder } from './prompt-builder.js';
import { RuntimeCore } from './runtime-core.js';
import { ReloadableRouter } from './wiring/reloadable-router.js';
import { wireRuntimeTools } from './wiring/runtime-tools.js';

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
    /** The prompt files and skill catalog: they watch folders until closed. */
    private readonly watched: ReadonlyArray<{ close(): void }>,
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
    const { tools, todo, mcp, toolNames, transcribe } = wireRuntimeTools(loaded, env, (draft) => bus.publish(draft), {
      logError,
      ...(options.send ? { send: options.send } : {}),
    });
    const files = new WorkspaceFiles(loaded.workspace);
    const catalog = new SkillCatalog(skillRoots(loaded.workspace, loaded.home, env));
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
      toolNames,
      workspace: loaded.workspace,
      now: options.now ?? (() => new Date()),
      budget: new BudgetGuard(log, bus, () => loaded.config, options.now ?? (() => new Date())),
      ...(mcp ? { mcp: { manager: mcp, ttl: loaded.config.tools.mcp.discovery.ttl } } : {}),
      ...(transcribe ? { transcribe } : {}),
    };
    return new Runtime(core, router, tools, services, mcp, [files, catalog]);
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
    await this.mcp?.stop();
    for (const watched of this.watched) watched.close();
    await this.core.close();
  }
}

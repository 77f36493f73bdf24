import { buildTools } from '../../adapters/tools/build-tools.js';
import type { ToolRegistry } from '../../adapters/tools/registry.js';
import type { Tool } from '../../adapters/tools/tool.js';
import type { Config, LoadedConfig } from '../../store/config/index.js';
import { SkillCatalog, skillRoots, type SkillInfo } from '../../store/skills.js';
import { agentWorkspace, ensureAgentWorkspace, WorkspaceFiles, type AgentDoc } from '../../store/workspace.js';
import { agentRegistryText, DELEGATING_TOOLS } from '../subagents/agent-registry.js';
import { allowedPeers } from '../subagents/allowed-agents.js';
import { defaultAgent } from '../dispatch.js';
import type { PluginTools } from '../plugins/plugin-host.js';
import { PromptBuilder } from '../prompt-builder.js';
import { toolsOptions } from './tools.js';

/** What is an agent's own: its workspace and the files, skills, tools and prompt made from it. */
export interface AgentParts {
  id: string;
  /** The folder its file tools work in and its AGENT.md, SOUL.md, memory and skills live in. */
  workspace: string;
  files: WorkspaceFiles;
  prompt: PromptBuilder;
  /** Its tools under the config as it is now: a reloaded `tools` block gives a new registry for the next turn. */
  readonly tools: ToolRegistry;
  /** Its skills: the catalog of its workspace, the global and built-in roots, filtered by its `skills`. */
  skills: () => SkillInfo[];
  agentDoc: () => AgentDoc;
  /** The tools an AGENT.md lets its agent use. */
  toolNames: (doc: AgentDoc) => string[];
  close(): void;
}

export interface AgentSetupDeps {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  logError: (line: string) => void;
  send?: Parameters<typeof toolsOptions>[5];
  /** Adds the tools every agent has beside the configured ones (todo, image_generate, spawn …) to a new registry. */
  addTools: (registry: ToolRegistry, workspace: string) => void;
}

/**
 * The tools an AGENT.md lets its agent use: the same document (unchanged file) and the same registry (no plugin
 * added a tool since) give the same list.
 */
function toolNamesOf(registry: () => ToolRegistry): (doc: AgentDoc) => string[] {
  let last: { doc: AgentDoc; tools: ToolRegistry; revision: number; names: string[] } | undefined;
  return (doc) => {
    const tools = registry();
    if (last?.doc !== doc || last.tools !== tools || last.revision !== tools.revision) {
      const allowed = doc.frontmatter.tools;
      last = {
        doc,
        tools,
        revision: tools.revision,
        names: tools
          .list()
          .map((t) => t.name)
          .filter((name) => !allowed || allowed.includes(name)),
      };
    }
    return last.names;
  };
}

/**
 * The skills an agent may use: its AGENT.md `skills`, else its `agents.list[].skills`, else all. The same catalog
 * list and filter give the same array, which the prompt builder's cache keys on.
 */
function skillsOf(
  catalog: SkillCatalog,
  files: WorkspaceFiles,
  entry: () => Config['agents']['list'][number] | undefined,
): () => SkillInfo[] {
  let last: { all: SkillInfo[]; allow: readonly string[] | undefined; skills: SkillInfo[] } | undefined;
  return () => {
    const all = catalog.list();
    const allow = files.agent().frontmatter.skills ?? entry()?.skills;
    if (last?.all !== all || last.allow !== allow)
      last = { all, allow, skills: allow ? all.filter((s) => allow.includes(s.name)) : all };
    return last.skills;
  };
}

/**
 * Every agent of a runtime, each built on first use from its own workspace (`agents.list[].workspace`, the default
 * agent's `agents.defaults.workspace`, else `<AGENT_HOME>/workspace-<id>`): its prompt files, skills and a tool
 * registry whose sandbox is that workspace under the one configured policy.
 */
export class AgentDirectory {
  private readonly built = new Map<string, AgentParts>();
  /** Tools plugins added: in every agent's registry, built already or later. */
  private readonly added: Tool[] = [];

  constructor(private readonly deps: AgentSetupDeps) {}

  /** Where plugins add their tools: every agent gets them. */
  readonly pluginTools: PluginTools = {
    has: (name) => this.added.some((tool) => tool.name === name) || this.parts(this.defaultId).tools.has(name),
    register: (tool) => {
      this.added.push(tool);
      for (const parts of this.built.values()) parts.tools.register(tool);
    },
  };

  get config(): Config {
    return this.deps.loaded.config;
  }

  /** The default agent: marked `default`, else the first of `agents.list`, else `main`. */
  get defaultId(): string {
    return defaultAgent(this.config);
  }

  parts(id: string): AgentParts {
    let parts = this.built.get(id);
    if (!parts) {
      parts = this.build(id);
      this.built.set(id, parts);
    }
    return parts;
  }

  /**
   * The agent registry of `agent`'s prompt, when its turn offers `spawn` or `subagent` and it may hand tasks to
   * peers: each peer's id with the name and description of its AGENT.md (its `agents.list` name, then its id).
   */
  registryFor(agent: string, tools: readonly string[]): string | undefined {
    if (!DELEGATING_TOOLS.some((name) => tools.includes(name))) return undefined;
    return agentRegistryText(
      allowedPeers(this.config, agent).map((id) => {
        const { frontmatter } = this.peerDoc(id);
        const name = frontmatter.name?.trim() || this.config.agents.list.find((a) => a.id === id)?.name?.trim() || id;
        return { id, name, description: frontmatter.description?.trim() ?? '' };
      }),
    );
  }

  close(): void {
    for (const parts of this.built.values()) parts.close();
    this.built.clear();
  }

  /** A peer's AGENT.md; one that cannot be read shows the peer by its id alone. */
  private peerDoc(id: string): AgentDoc {
    try {
      return this.parts(id).agentDoc();
    } catch {
      return { frontmatter: {}, body: '' };
    }
  }

  private newRegistry(workspace: string): ToolRegistry {
    const { loaded, env } = this.deps;
    const tools = buildTools(
      toolsOptions(
        loaded.config,
        workspace,
        loaded.home,
        env,
        (entry) => this.deps.logError(JSON.stringify(entry)),
        this.deps.send,
      ),
    );
    this.deps.addTools(tools, workspace);
    for (const tool of this.added) tools.register(tool);
    return tools;
  }

  /**
   * The agent's registry, built again when a hot reload replaced the `tools` block (or the workspace restriction):
   * the next turn runs under the new policy (exec on or off, deny patterns, allow paths, web settings) without a
   * restart. A block the tools refuse keeps the previous registry, and says why.
   */
  private followedTools(workspace: string): () => ToolRegistry {
    const policyOf = (config: Config) => [config.tools, config.agents.defaults.restrict_to_workspace] as const;
    let policy = policyOf(this.config);
    let registry = this.newRegistry(workspace);
    return () => {
      const now = policyOf(this.config);
      if (now[0] === policy[0] && now[1] === policy[1]) return registry;
      policy = now;
      try {
        registry = this.newRegistry(workspace);
      } catch (error) {
        this.deps.logError(`tools not reloaded; the previous tools stay: ${(error as Error).message}`);
      }
      return registry;
    };
  }

  private build(id: string): AgentParts {
    const { loaded, env } = this.deps;
    const workspace = agentWorkspace(loaded.config, loaded.home, loaded.workspace, id, id === this.defaultId);
    ensureAgentWorkspace(workspace);
    const tools = this.followedTools(workspace);
    const files = new WorkspaceFiles(workspace);
    const catalog = new SkillCatalog(skillRoots(workspace, loaded.home, env));
    return {
      id,
      workspace,
      files,
      prompt: new PromptBuilder(files, () => this.config.agents.defaults.memory.inline_max_chars),
      get tools() {
        return tools();
      },
      skills: skillsOf(catalog, files, () => this.config.agents.list.find((a) => a.id === id)),
      agentDoc: () => files.agent(),
      toolNames: toolNamesOf(tools),
      close: () => {
        files.close();
        catalog.close();
      },
    };
  }
}

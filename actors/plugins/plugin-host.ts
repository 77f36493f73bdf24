import type { Subscription } from 'rxjs';
import { CHAT_COMMANDS } from '../../adapters/channels/command-names.js';
import {
  PluginLoadError,
  type PluginChannelSpec,
  type PluginCommand,
  type PluginParts,
  type PluginToLoad,
} from '../../adapters/plugins/api.js';
import { loadChildPlugin } from '../../adapters/plugins/child-plugin.js';
import { checkedPluginConfig } from '../../adapters/plugins/config-check.js';
import { loadInProcess } from '../../adapters/plugins/load-in-process.js';
import type { Tool } from '../../adapters/tools/tool.js';
import type { Bus, PluginState } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';
import { discoverPlugins, type FoundPlugin } from '../../store/plugins/discover.js';
import { PluginFailures } from '../../store/plugins/failures.js';
import { pluginFingerprint } from '../../store/plugins/fingerprint.js';
import { pluginDataDir } from '../../store/plugins/locations.js';
import type { HookEngine } from '../hooks/engine.js';
import type { HookLog } from '../hooks/hook-set.js';

/** One plugin as `/list plugins`, `tern plugins list` and the dashboard show it. */
export interface PluginRow {
  name: string;
  version?: string;
  state: PluginState;
  reason?: string;
  path: string;
}

/** The tools of the runtime's agents as plugins add to them. */
export interface PluginTools {
  has(name: string): boolean;
  register(tool: Tool): unknown;
}

export interface PluginHostDeps {
  bus: Bus;
  config: () => Config;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Where a plugin's tools go: every agent's registry. */
  tools: PluginTools;
  /** Where a plugin's hooks go; false when hooks are off. */
  hooks: Pick<HookEngine, 'add'>;
  log: HookLog;
}

type Loaded = { row: PluginRow; parts?: PluginParts; problems: string[]; channelProblems: Map<string, string> };
type Started = Extract<FoundPlugin, { ok: true }>;
type Entry = Config['plugins']['entries'][string];
type Base = Omit<PluginRow, 'state'>;

/** Said after the reason of a plugin that is not loaded again because it failed before as it is now. */
export const RETRY_NOTE = 'it failed like this before; Tern loads it again when its files or its plugins entry change';

const BUILT_IN_COMMANDS: ReadonlySet<string> = new Set(CHAT_COMMANDS);

const describe = (error: unknown): string => (error as Error)?.message ?? String(error);

/**
 * The plugin packages of a process: found on disk and in the config, loaded once the gateway is ready (in-process
 * when `trusted`, else as a child process), their tools, hooks, commands and channel kinds handed to the runtime.
 * Each ends in one of the spec's states, published as `plugin.state`; one that fails never stops the others or the
 * gateway. A plugin's channel that cannot connect makes it `degraded` until it does.
 */
export class PluginHost {
  private readonly plugins = new Map<string, Loaded>();
  private readonly commands = new Map<string, PluginCommand>();
  private readonly kinds = new Map<string, { plugin: string; spec: PluginChannelSpec }>();
  private readonly channelEvents: Subscription;
  /** Plugins whose state has been published once: a later `plugin.state` only says what changed. */
  private readonly published = new Set<string>();
  private loading: Promise<void> | undefined;

  constructor(private readonly deps: PluginHostDeps) {
    this.channelEvents = deps.bus
      .on('channel.failed', 'channel.connected')
      .subscribe((event) =>
        this.channelMoved(event.data.channel, event.type === 'channel.failed' ? event.data.message : undefined),
      );
  }

  /** Loads every plugin once; later calls return the same promise. */
  load(): Promise<void> {
    this.loading ??= this.loadAll();
    return this.loading;
  }

  rows(): PluginRow[] {
    return [...this.plugins.values()].map((p) => p.row);
  }

  /** A chat command a plugin added, if `name` is one. */
  command(name: string): PluginCommand | undefined {
    return this.commands.get(name);
  }

  /** The channel kind a plugin added, for `channel_list` entries of that `type`. */
  channelKind(kind: string): PluginChannelSpec | undefined {
    return this.kinds.get(kind)?.spec;
  }

  async close(): Promise<void> {
    this.channelEvents.unsubscribe();
    await this.loading?.catch(() => undefined);
    await Promise.all([...this.plugins.values()].map((p) => p.parts?.close().catch(() => undefined)));
  }

  private async loadAll(): Promise<void> {
    const config = this.deps.config();
    const failures = new PluginFailures(this.deps.home);
    for (const found of discoverPlugins(config, this.deps.home)) {
      const entry = config.plugins.entries[found.name];
      const version = found.ok ? found.manifest.version : undefined;
      const base = { name: found.name, ...(version ? { version } : {}), path: found.dir };
      if (!entry) this.settle(base, 'not enabled');
      else if (!config.plugins.enabled) this.settle(base, 'disabled', 'plugins.enabled is false');
      else if (!entry.enabled) this.settle(base, 'disabled');
      else if (!found.ok) this.settle(base, 'failed', found.problem);
      else await this.startOnce(found, entry, base, failures);
    }
  }

  /**
   * Starts a plugin unless it failed before with the same files and entry: then it stays failed with that reason,
   * without the cost of loading it (a child process, a syntax check, a wait for its time limit) on every run.
   */
  private async startOnce(found: Started, entry: Entry, base: Base, failures: PluginFailures): Promise<void> {
    const known = failures.known(found.name, pluginFingerprint(found.dir, entry));
    if (known) return this.settle(base, 'failed', `${known.reason} (${RETRY_NOTE})`);
    const failure = await this.start(found, entry, base);
    if (failure === undefined) failures.forget(found.name);
    // Taken after the attempt: what the failed load itself wrote into its folder is part of how it is now.
    else failures.record(found.name, pluginFingerprint(found.dir, entry), failure);
  }

  /** Loads one plugin; resolves with why it failed, if it did. */
  private async start(found: Started, entry: Entry, base: Base): Promise<string | undefined> {
    const { deps } = this;
    const log: HookLog = (level, message, fields) => deps.log(level, message, { plugin: found.name, ...fields });
    try {
      const plugin: PluginToLoad = {
        name: found.name,
        version: found.manifest.version,
        dir: found.dir,
        entry: found.entry,
        capabilities: found.manifest.capabilities,
        config: checkedPluginConfig(found.name, found.manifest.config_schema, entry.config),
        dataDir: pluginDataDir(deps.config(), deps.home, found.name),
        priority: entry.priority,
        timeoutMs: deps.config().plugins.activate_timeout_ms,
        ...(found.manifest.hooks ? { hooks: found.manifest.hooks } : {}),
      };
      const parts = entry.trusted
        ? await loadInProcess(plugin, log)
        : await loadChildPlugin(plugin, {
            log,
            processEnv: deps.env,
            onStatus: (problem) => this.processMoved(found.name, problem),
          });
      const problems = [...parts.problems, ...this.adopt(found.name, parts)];
      this.plugins.set(found.name, { row: { ...base, state: 'ready' }, parts, problems, channelProblems: new Map() });
      this.refresh(found.name);
      return undefined;
    } catch (error) {
      if (!(error instanceof PluginLoadError)) log('error', 'plugin failed to load', { reason: describe(error) });
      this.settle(base, 'failed', describe(error));
      return describe(error);
    }
  }

  /** Hands a loaded plugin's parts to the runtime; returns what could not be taken (a name already used). */
  private adopt(plugin: string, parts: PluginParts): string[] {
    const problems: string[] = [];
    for (const tool of parts.tools) {
      if (this.deps.tools.has(tool.name)) problems.push(`tool ${tool.name} is already there; its own was left out`);
      else this.deps.tools.register(tool);
    }
    for (const command of parts.commands) {
      if (BUILT_IN_COMMANDS.has(command.name) || this.commands.has(command.name))
        problems.push(`command /${command.name} is already there; its own was left out`);
      else this.commands.set(command.name, command);
    }
    for (const spec of parts.channels) {
      if (['telegram', 'discord', 'slack', 'pico'].includes(spec.kind) || this.kinds.has(spec.kind))
        problems.push(`channel kind ${spec.kind} is already there; its own was left out`);
      else this.kinds.set(spec.kind, { plugin, spec });
    }
    if (parts.hook && !this.deps.hooks.add(parts.hook)) problems.push('its hooks are off (hooks.enabled is false)');
    return problems;
  }

  private settle(base: Omit<PluginRow, 'state'>, state: PluginState, reason?: string): void {
    this.plugins.set(base.name, {
      row: { ...base, state, ...(reason ? { reason } : {}) },
      problems: [],
      channelProblems: new Map(),
    });
    this.publish(base.name);
  }

  /** A loaded plugin's state from what is wrong with it now: nothing (`ready`), or its problems (`degraded`). */
  private refresh(name: string): void {
    const plugin = this.plugins.get(name);
    if (!plugin?.parts) return;
    const problems = [...plugin.problems, ...plugin.channelProblems.values()];
    const { reason: _reason, ...row } = plugin.row;
    const next: PluginRow =
      problems.length > 0 ? { ...row, state: 'degraded', reason: problems.join('; ') } : { ...row, state: 'ready' };
    const changed = !this.published.has(name) || next.state !== plugin.row.state || next.reason !== plugin.row.reason;
    plugin.row = next;
    if (changed) this.publish(name);
  }

  private publish(name: string): void {
    const row = this.plugins.get(name)?.row;
    if (!row) return;
    this.published.add(name);
    this.deps.bus.publish({
      type: 'plugin.state',
      data: {
        plugin: row.name,
        ...(row.version ? { version: row.version } : {}),
        state: row.state,
        ...(row.reason ? { reason: row.reason } : {}),
        path: row.path,
      },
    });
  }

  private processMoved(name: string, problem: string | undefined): void {
    const plugin = this.plugins.get(name);
    if (!plugin) return;
    if (problem) plugin.channelProblems.set('process', problem);
    else plugin.channelProblems.delete('process');
    this.refresh(name);
  }

  /** A `channel_list` entry of a plugin's kind failed (`reason`) or connected. */
  private channelMoved(channel: string, reason: string | undefined): void {
    const kind = this.deps.config().channel_list[channel]?.type ?? channel;
    const owner = this.kinds.get(kind)?.plugin;
    const plugin = owner ? this.plugins.get(owner) : undefined;
    if (!owner || !plugin) return;
    if (reason) plugin.channelProblems.set(`channel:${channel}`, `channel ${channel} cannot connect (${reason})`);
    else plugin.channelProblems.delete(`channel:${channel}`);
    this.refresh(owner);
  }
}

import type { Hook, Hooks } from '../../bus/index.js';
import type { Channel } from '../channels/channel.js';
import type { Tool } from '../tools/tool.js';

/** What a plugin tool knows about the call besides its arguments. */
export interface PluginToolContext {
  agent: string;
  session: string;
  turn?: string;
  channel: string;
  chat: string;
  signal: AbortSignal;
}

/**
 * A tool a plugin adds. `parameters` is a JSON schema (checked before `execute` runs); the answer is the text the model
 * reads, or `{ ok, content }`.
 */
export interface PluginToolSpec {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
  execute(args: Record<string, unknown>, context: PluginToolContext): unknown;
}

export interface PluginCommandContext {
  agent: string;
  session: string;
  channel: string;
  chat: string;
  sender: string;
}

/** A chat command a plugin adds: `/name args`, answered before the model sees the message. */
export interface PluginCommandSpec {
  name: string;
  description?: string;
  run(args: string, context: PluginCommandContext): string | Promise<string>;
}

/** A channel kind a plugin adds; `channel_list` entries of `type: <kind>` use it. */
export interface PluginChannelSpec {
  kind: string;
  create(settings: Record<string, unknown>, name: string): Channel | Promise<Channel>;
}

/**
 * What a trusted (in-process) plugin's `activate(api)` receives. Hooks are a mitt emitter:
 * `api.hooks.on('before_tool', (ask) => ask.decide({ action: 'deny_tool', reason: '…' }))`.
 */
export interface TernPluginApi {
  readonly name: string;
  readonly version: string;
  /** `plugins.entries.<name>.config`, checked against the manifest's `config_schema`. */
  readonly config: Record<string, unknown>;
  /** The plugin's own folder under the plugin-data root. */
  readonly dataDir: string;
  readonly hooks: Hooks;
  registerTool(spec: PluginToolSpec): void;
  registerCommand(spec: PluginCommandSpec): void;
  registerChannel(spec: PluginChannelSpec): void;
  log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, string | number>): void;
}

/** A registered command as the host runs it. */
export interface PluginCommand {
  name: string;
  description: string;
  run(args: string, context: PluginCommandContext): Promise<string>;
}

/** What a loaded plugin brought. `problems` are capabilities that did not work: the plugin is degraded, not failed. */
export interface PluginParts {
  tools: Tool[];
  commands: PluginCommand[];
  channels: PluginChannelSpec[];
  hook: Hook | undefined;
  problems: string[];
  close(): Promise<void>;
}

/** Why a plugin could not load at all; the message is the reason its `failed` state shows. */
export class PluginLoadError extends Error {
  constructor(
    readonly code: 'load_failed' | 'config_invalid' | 'activate_failed' | 'activate_timeout' | 'start_failed',
    message: string,
  ) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

/** Everything a loader needs to know about one plugin. */
export interface PluginToLoad {
  name: string;
  version: string;
  dir: string;
  entry: string;
  capabilities: readonly string[];
  config: Record<string, unknown>;
  dataDir: string;
  priority: number;
  /** How long loading it may take (`plugins.activate_timeout_ms`). */
  timeoutMs: number;
  /** Declared in the manifest for a child-process plugin: the points it intercepts and the events it observes. */
  hooks?: { intercept: readonly string[]; observe?: readonly string[] };
}

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The failure of a plugin that took longer than `plugins.activate_timeout_ms` to load. */
export function loadTimeout(what: string, ms: number): PluginLoadError {
  return new PluginLoadError('activate_timeout', `${what} within ${seconds(ms)} (plugins.activate_timeout_ms)`);
}

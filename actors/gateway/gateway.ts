import type { Channel } from '../../adapters/channels/channel.js';
import { watchConfig } from '../../store/config/index.js';
import { changedPaths } from '../../store/config/diff.js';
import type { ChannelEntry, LoadedConfig } from '../../store/config/index.js';
import type { GatewayLogs } from '../../store/logs/logger.js';
import { readLastChannel } from '../../store/state.js';
import type { SendFunction, SendTarget } from '../../adapters/tools/options.js';
import type { ToolMedia } from '../../adapters/tools/tool.js';
import { Runtime } from '../runtime.js';
import { ChannelActor } from './channel-actor.js';
import { createChannel, supervisionOf } from './channel-factory.js';
import { Dispatcher } from './dispatcher.js';
import { startHealthServer, type HealthServer, type Readiness } from './health-server.js';
import { Heartbeat } from './heartbeat.js';
import { Outbox } from './outbox.js';
import { realScheduler, type Scheduler } from './scheduler.js';

export interface GatewayOptions {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  logs: GatewayLogs;
  scheduler?: Scheduler;
  /** Builds a channel for an entry; the built-in kinds by default. */
  createChannel?: (name: string, entry: ChannelEntry) => Promise<Channel>;
  /** How long running turns may take to finish at shutdown. */
  drainMs?: number;
}

/** Maintenance intervals (2 s config check) are stretched by `power.poll_interval_multiplier`. */
const CONFIG_CHECK_MS = 2000;

function enabledChannels(loaded: LoadedConfig): Array<[string, ChannelEntry]> {
  return Object.entries(loaded.config.channel_list).filter(([, entry]) => entry.enabled && (entry.type ?? '') !== 'pico');
}

/**
 * `tern gateway`: one Runtime, a supervised actor per enabled channel account, the dispatcher, the
 * heartbeat, config hot reload and the health server. `stop()` drains: no new turns, running turns get
 * `drainMs`, then the log is flushed and closed.
 */
export class Gateway {
  private readonly actors = new Map<string, ChannelActor>();
  private readonly dispatcher: Dispatcher;
  private readonly outbox: Outbox;
  private readonly heartbeat: Heartbeat;
  private readonly scheduler: Scheduler;
  private watcher: { stop(): void } | undefined;
  private health: HealthServer | undefined;
  private loaded: LoadedConfig;

  private constructor(readonly runtime: Runtime, private readonly options: GatewayOptions) {
    this.loaded = options.loaded;
    this.scheduler = options.scheduler ?? realScheduler;
    const { logs } = options;
    this.outbox = new Outbox(runtime.bus, logs.gateway);
    this.dispatcher = new Dispatcher({
      runtime,
      outbox: this.outbox,
      logger: logs.gateway,
      config: () => this.loaded.config,
      entry: (name) => this.loaded.config.channel_list[name],
      workspace: this.loaded.workspace,
      now: () => this.scheduler.now(),
    });
    this.heartbeat = new Heartbeat({
      runtime,
      bus: runtime.bus,
      logger: logs.heartbeat,
      scheduler: this.scheduler,
      config: () => this.loaded.config,
      workspace: this.loaded.workspace,
      notify: (text, runId) => this.notifyLastChannel(text, runId),
    });
  }

  static async start(options: GatewayOptions): Promise<Gateway> {
    let started: Gateway | undefined;
    const send: SendFunction = (target, text, media) => {
      if (!started) return Promise.reject(new Error('the gateway is still starting'));
      return started.sendToChat(target, text, media);
    };
    const runtime = Runtime.start({ loaded: options.loaded, env: options.env, command: 'gateway', logError: (line) => options.logs.gateway.error(line), send });
    const gateway = new Gateway(runtime, options);
    started = gateway;
    try {
      const { host, port } = options.loaded.config.gateway;
      gateway.health = await startHealthServer(host, port, () => gateway.readiness());
      for (const [name, entry] of enabledChannels(options.loaded)) gateway.startChannel(name, entry);
      gateway.heartbeat.start();
      gateway.watch();
      runtime.bus.publish({ type: 'gateway.started', data: { pid: process.pid, channels: [...gateway.actors.keys()] } });
      options.logs.gateway.info('gateway started', { url: gateway.url, channels: [...gateway.actors.keys()].join(',') || 'none' });
      return gateway;
    } catch (error) {
      await gateway.health?.close();
      await runtime.close();
      throw error;
    }
  }

  get url(): string {
    return this.health?.url ?? '';
  }

  readiness(): Readiness {
    const actors = [...this.actors.values()];
    return {
      ready: actors.every((a) => a.reported),
      channels: actors.map((a) => ({ name: a.id.name, state: a.status.state, ...(a.status.state === 'failed' ? { reason: a.status.reason } : {}) })),
    };
  }

  async stop(signal?: string): Promise<void> {
    const { logs } = this.options;
    this.runtime.bus.publish({ type: 'gateway.stopping', data: signal ? { signal } : {} });
    this.watcher?.stop();
    this.heartbeat.stop();
    const finished = await this.dispatcher.drain(this.options.drainMs ?? 10_000);
    if (!finished) logs.gateway.warn('running turns did not finish in time and are aborted');
    await Promise.all([...this.actors.values()].map((a) => a.stop()));
    await this.health?.close();
    await this.runtime.close();
    logs.gateway.info('gateway stopped', { signal });
  }

  private startChannel(name: string, entry: ChannelEntry): void {
    const multiplier = this.loaded.config.power.poll_interval_multiplier;
    const build = this.options.createChannel ?? ((n: string, e: ChannelEntry) => createChannel(n, e, multiplier));
    const backoff = supervisionOf(entry).restart_backoff_ms;
    const kind = entry.type ?? name;
    const actor = new ChannelActor({ name, kind, account: name === kind ? 'default' : name }, () => build(name, this.loaded.config.channel_list[name] ?? entry), {
      bus: this.runtime.bus,
      logger: this.options.logs.gateway,
      scheduler: this.scheduler,
      backoff: { baseMs: backoff, maxMs: Math.max(backoff, 60_000) },
      onMessage: (from, message) => this.dispatcher.accept(from, message),
    });
    this.actors.set(name, actor);
    actor.start();
  }

  /** Hot reload: channels whose entry changed restart, the rest keep running; rules and heartbeat follow the new config. */
  private watch(): void {
    const multiplier = this.loaded.config.power.poll_interval_multiplier;
    this.watcher = watchConfig({
      bus: this.runtime.bus,
      env: this.options.env,
      path: this.loaded.path,
      intervalMs: CONFIG_CHECK_MS * multiplier,
      log: (line) => this.options.logs.gateway.warn(line),
      onChange: (loaded) => void this.reload(loaded),
    });
  }

  private async reload(next: LoadedConfig): Promise<void> {
    const before = this.loaded.config;
    const changed = changedPaths(before, next.config);
    this.loaded = next;
    this.runtime.loaded.config = next.config;
    const touched = new Set(changed.filter((p) => p.startsWith('channel_list')).map((p) => p.split('.')[1] ?? ''));
    const all = touched.has('') ? new Set([...this.actors.keys(), ...Object.keys(next.config.channel_list)]) : touched;
    for (const name of all) {
      await this.actors.get(name)?.stop();
      this.actors.delete(name);
      const entry = next.config.channel_list[name];
      if (entry?.enabled) this.startChannel(name, entry);
    }
    if (changed.some((p) => p.startsWith('heartbeat') || p.startsWith('power'))) this.heartbeat.start();
    this.options.logs.gateway.info('config reloaded', { changed: changed.join(',') });
  }

  /**
   * What the `message` and `send_file` tools send, through the same outbox as replies. Channels carry text,
   * so attached files are named by their path under the text.
   */
  private async sendToChat(target: SendTarget, text: string, media: ToolMedia[]): Promise<void> {
    // Turns name their channel by kind (`telegram`), the tool's caller may name an entry: either is found.
    const actor = this.actors.get(target.channel) ?? [...this.actors.values()].find((a) => a.id.kind === target.channel);
    if (!actor) throw new Error(`no channel "${target.channel}" is running (running: ${[...this.actors.keys()].join(', ') || 'none'})`);
    const body = [text, ...media.map((m) => `[${m.kind}: ${m.path}]`)].filter((line) => line.trim()).join('\n');
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // A chat is `direct:<id>`, `group:<id>` or `channel:<id>`; the platform address is the id.
    const replyTo = target.chat.replace(/^(direct|group|channel):/, '');
    await this.outbox.deliver({ actor, chat: target.chat, replyTo, keyBase: `tool:${id}`, correlation: {} }, 'message', body);
  }

  private async notifyLastChannel(text: string, runId: string): Promise<boolean> {
    const last = readLastChannel(this.loaded.workspace);
    const actor = last ? this.actors.get(last.channel) : undefined;
    if (!last || !actor) return false;
    await this.outbox.deliver({ actor, chat: last.chat, replyTo: last.reply_to, keyBase: `heartbeat:${runId}`, correlation: {} }, 'heartbeat', text);
    return true;
  }
}

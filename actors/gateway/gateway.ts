import type { Subscription } from 'rxjs';
import { createActor, fromPromise, waitFor, type Actor } from 'xstate';
import type { Channel, WebhookAnswer, WebhookRequest } from '../../adapters/channels/channel.js';
import { webhookPath } from '../../adapters/channels/webhook-path.js';
import { RedactingChannel } from '../../adapters/channels/redacting-channel.js';
import { mcpOptionsFromConfig } from '../../adapters/mcp/from-config.js';
import { McpConfigError, mcpConfigProblems } from '../../adapters/mcp/options.js';
import type { SendOutcome, SendTarget } from '../../adapters/tools/options.js';
import type { ToolMedia } from '../../adapters/tools/tool.js';
import { channelBoard } from '../../machines/channel.js';
import { cronBoard } from '../../machines/cron.js';
import { gatewayBoard, gatewayMachine } from '../../machines/gateway.js';
import { heartbeatBoard } from '../../machines/heartbeat.js';
import { isSecret, redactorOf, watchConfig, WEB_UI_CHANNEL_TYPE } from '../../store/config/index.js';
import { changedPaths } from '../../store/config/diff.js';
import type { ChannelEntry, Config, LoadedConfig } from '../../store/config/index.js';
import { saveInboundMedia } from '../../store/inbound-media.js';
import type { EventStore } from '../../store/log/event-store.js';
import type { PartJournal } from '../../store/log/send-journal.js';
import type { GatewayLogs } from '../../store/logs/logger.js';
import { describeFix, makeSecretsPrivate, makeWorkspacesPrivate } from '../../store/private-files.js';
import { agentWorkspaces } from '../../store/workspace.js';
import { readLastChannel } from '../../store/state.js';
import { BoardInspector } from '../board.js';
import { CronActor } from '../cron/cron-actor.js';
import { cronCommandRunner, cronTurnRunner } from '../cron/host-effects.js';
import { InFlight } from '../in-flight.js';
import type { Runtime } from '../runtime.js';
import { RuntimeCore } from '../runtime-core.js';
import { ChannelActor } from './channel-actor.js';
import { promptApprovals } from './approval-prompts.js';
import { ChannelDirectory } from './channel-directory.js';
import { createChannel, supervisionOf, SUPPORTED_KINDS } from './channel-factory.js';
import { Deliveries, type Delivery } from '../deliveries.js';
import { Dispatcher } from './dispatcher.js';
import { startHealthServer, type HealthServer, type Readiness } from './health-server.js';
import { Heartbeat } from './heartbeat.js';
import { acceptInbound } from './inbound.js';
import { MediaCleanup } from './media-cleanup.js';
import { APPROVED_NOTICE, PairingDesk } from '../pairing-desk.js';
import { PairingStore } from '../../store/pairing.js';
import { accessNotice, channelAccess } from './channel-access.js';
import { followPairing } from './pairing-follow.js';
import { Outbox } from './outbox.js';
import { RecentIds } from './recent-ids.js';
import { clockOf, realScheduler, type ActorClock, type Scheduler } from '../scheduler.js';
import { logToolCalls } from './tool-call-log.js';
import { settledWithin } from '../settled-within.js';

export interface GatewayOptions {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  logs: GatewayLogs;
  scheduler?: Scheduler;
  /** Builds a channel for an entry; the built-in kinds by default. */
  createChannel?: (name: string, entry: ChannelEntry) => Promise<Channel>;
  /** How long running turns may take to finish at shutdown. */
  drainMs?: number;
  /** How long the stop then waits for work the drain left (replies going out, a cron run being recorded). */
  leftWorkMs?: number;
  /** Channel kinds the host builds in its own process (the launcher's `pico`); an entry of such a kind runs only when given here. */
  hostChannels?: Partial<Record<string, (name: string, entry: ChannelEntry) => Promise<Channel>>>;
  /** Applied to the config at every reload, as the host applied it to `loaded` (the launcher adds its web-UI channel). */
  adjustConfig?: (loaded: LoadedConfig) => LoadedConfig;
  /**
   * `optional`: a busy `gateway.host:port` is logged and the gateway runs without `/health` (the launcher must not fail).
   * `none`: no health server (a channel account's gateway inside a cluster member, which serves `/health` once).
   */
  health?: 'required' | 'optional' | 'none';
  /** The log to run on instead of the workspace's lmdb log (a stream of the cluster, #27). */
  log?: EventStore;
  /** The send journal that goes with `log` (a cluster account's marks, #40); the workspace's file by default. */
  journal?: PartJournal;
  /**
   * Whether the heartbeat and cron run here from the start (default true). A channel account's gateway in a cluster
   * never runs them; a member's own gateway runs them while it holds the cluster's schedule lease (`setScheduled`).
   */
  scheduled?: boolean;
  /**
   * Text for a chat of a channel this gateway does not run (a cluster account another member may hold, #27): handed
   * to whoever runs it. Resolves with the account it was queued for once accepted for delivery; rejects with the reason
   * it cannot be (no such account). `delivery.reply.channel` is what the caller named: an entry name or a channel kind.
   */
  relay?: (delivery: Delivery) => Promise<string>;
  /** Called before the gateway publishes its first event, so a host following the bus sees `gateway.started`. */
  onRuntime?: (core: RuntimeCore) => void;
}

/**
 * How long the stop waits for what runs after the drain (a reply going out, a cron run being recorded) by default: a
 * send the platform never answers must not hold it (the Bot API transport allows a call 510 s).
 */
const LEFT_WORK_MS = 10_000;
/**
 * How long after the last channel reports the engine and cron wait before loading. Loading them is synchronous
 * compiling; started at once, it held up the `/ready` answer that the same report made true.
 */
const BACKGROUND_START_DELAY_MS = 100;
/** Inbound ids remembered against redeliveries. */
const SEEN_INBOUND = 10_000;
/** Why subagent tasks still running at a stop are canceled, as their `subagent.ended` records it. */
const STOP_REASON = 'the gateway is stopping';

/** The web-UI channel lives in the launcher: a `pico` entry runs only where the host builds it. */
function runs(entry: ChannelEntry, options: GatewayOptions): boolean {
  return entry.enabled && ((entry.type ?? '') !== 'pico' || options.hostChannels?.pico !== undefined);
}

/** A `tools.mcp` block the MCP manager cannot run refuses the start, although the manager starts after `/ready`. */
function checkMcp(config: Config): void {
  if (!config.tools.mcp.enabled) return;
  const problems = mcpConfigProblems(mcpOptionsFromConfig(config.tools.mcp));
  if (problems.length > 0) throw new McpConfigError(problems);
}

/**
 * A channel whose kind is neither built in nor the host's may come from a plugin, when a trusted one is enabled
 * (only trusted plugins add channels): it starts once the plugins have loaded (after `/ready`), and does not hold up
 * readiness. Without such a plugin an unknown kind fails at once, as unsupported.
 */
function pluginKind(name: string, entry: ChannelEntry, options: GatewayOptions, config: Config): boolean {
  const kind = entry.type ?? name;
  if (options.createChannel !== undefined || options.hostChannels?.[kind] !== undefined || (SUPPORTED_KINDS as readonly string[]).includes(kind)) return false;
  return config.plugins.enabled && Object.values(config.plugins.entries).some((plugin) => plugin.enabled && plugin.trusted);
}

function enabledChannels(loaded: LoadedConfig, options: GatewayOptions): Array<[string, ChannelEntry]> {
  return Object.entries(loaded.config.channel_list).filter(([, entry]) => runs(entry, options));
}

/**
 * `tern gateway`: one runtime core (log and bus), a supervised actor per enabled channel account, the dispatcher,
 * the outbox, the heartbeat, cron, config hot reload and the health server, all talking through the bus. The gateway
 * machine is its state (`starting` → `running` → `draining` → `stopped`). `stop()` drains: no new turns, running
 * turns get `drainMs`, their replies go out, then channels stop and the log is flushed and closed; work accepted and
 * not finished stays in the log for the next start.
 */
export class Gateway {
  private readonly actors = new Map<string, ChannelActor>();
  private readonly directory = new ChannelDirectory();
  private readonly board: BoardInspector;
  private readonly dispatcher: Dispatcher;
  private readonly outbox: Outbox;
  private readonly deliveries: Deliveries;
  private readonly heartbeat: Heartbeat;
  private readonly mediaCleanup: MediaCleanup;
  private readonly cron: CronActor;
  private readonly scheduler: Scheduler;
  private readonly clock: ActorClock;
  private readonly machine: Actor<typeof gatewayMachine>;
  private readonly seen = new RecentIds(SEEN_INBOUND);
  private watcher: { stop(): void } | undefined;
  /** Who may talk to channels without `allow_from`: the owner's pairing decisions, and the desk that takes them. */
  private readonly pairing: PairingStore;
  private readonly desk: PairingDesk;
  private pairingFollow: { stop(): void } | undefined;
  /** Config reloads in flight: one still stopping a channel when the gateway stops starts nothing more. */
  private readonly reloads = new InFlight();
  private stopping = false;
  private cronWait: Subscription | undefined;
  private engineWait: Subscription | undefined;
  private readonly approvals: Subscription;
  private readonly logHealth: Subscription;
  private readonly toolCalls: Subscription;
  /** The last start or stop of cron (`syncCron`): each waits for the one before. */
  private cronChange: Promise<void> | undefined;
  /** Whether the heartbeat and cron run here now (`GatewayOptions.scheduled`, `setScheduled`). */
  private scheduling: boolean;
  /** Set once the background start (engine, cron) has run. */
  private backgroundStarted = false;
  /** Whether cron was last started (not stopped): `syncCron` changes it. */
  private cronRuns = false;
  private backgroundStart: ReturnType<typeof setTimeout> | undefined;
  private health: HealthServer | undefined;
  private loaded: LoadedConfig;
  private engineLoad: Promise<Runtime> | undefined;
  private loadedEngine: Runtime | undefined;
  private markEngineLoaded: () => void = () => undefined;
  /** Settles once the turn engine has loaded, without loading it. */
  readonly engineLoaded = new Promise<void>((resolve) => {
    this.markEngineLoaded = resolve;
  });

  private constructor(readonly core: RuntimeCore, private readonly options: GatewayOptions) {
    this.loaded = options.loaded;
    this.scheduling = options.scheduled !== false;
    this.scheduler = options.scheduler ?? realScheduler;
    this.clock = clockOf(this.scheduler);
    const { bus } = core;
    const { logs } = options;
    this.board = new BoardInspector(bus, { gateway: gatewayBoard, heartbeat: heartbeatBoard, channel: channelBoard, cron: cronBoard });
    this.deliveries = new Deliveries(bus);
    this.pairing = new PairingStore(this.loaded.home);
    this.desk = new PairingDesk({
      bus,
      store: this.pairing,
      now: () => this.scheduler.now(),
      notify: {
        runs: (channel) => this.actors.has(channel),
        send: ({ channel, chat, reply_to, code }) =>
          void this.deliveries.send({ message_id: `pairing-${code}`, key: `${channel}:pairing-${code}:approved`, text: APPROVED_NOTICE, reply: { channel, chat, reply_to }, outcome: 'message' }),
      },
    });
    this.dispatcher = new Dispatcher({ bus, logger: logs.gateway, config: () => this.loaded.config, isLocal: (name) => this.directory.get(name)?.capabilities.local === true });
    this.outbox = new Outbox({ bus, logger: logs.gateway, directory: this.directory, entry: (name) => this.loaded.config.channel_list[name], now: () => this.scheduler.now(), sent: core.recovered.sentKeys, placeholders: core.recovered.placeholders, ...(core.journal ? { journal: core.journal } : {}) });
    for (const id of core.recovered.seenInbound) this.seen.add(id);
    for (const part of core.recovered.unconfirmed) {
      logs.gateway.warn('a reply part was being sent when the process ended: it is not sent again and may be missing from the chat', part);
    }
    this.approvals = promptApprovals(bus, this.deliveries, logs.gateway);
    this.logHealth = bus.on('log.failed', 'log.recovered').subscribe((e) => {
      if (e.type === 'log.failed') {
        const { code, reason } = e.data;
        logs.gateway.error('the event log cannot write; new messages wait at their platforms', { code, reason });
      }
      else logs.gateway.info('the event log writes again', { failed_ms: e.data.failed_ms });
    });
    this.toolCalls = logToolCalls(bus, logs);
    this.heartbeat = new Heartbeat({
      engine: () => this.engine(),
      loadedEngine: () => this.loadedEngine,
      bus,
      logger: logs.heartbeat,
      clock: this.clock,
      now: () => this.scheduler.now(),
      config: () => this.loaded.config,
      workspace: this.loaded.workspace,
      deliver: (delivery) => this.deliver(delivery),
      inspect: this.board.inspect,
    });
    this.mediaCleanup = new MediaCleanup({ scheduler: this.scheduler, config: () => this.loaded.config, workspace: this.loaded.workspace, logger: logs.gateway });
    this.cron = new CronActor({
      workspace: this.loaded.workspace,
      bus,
      scheduler: this.scheduler,
      config: () => this.loaded.config,
      logger: logs.gateway,
      inspect: this.board.inspect,
      retired: (actor, reason) => this.board.stopped(actor, reason),
      send: (target, text) => this.sendToChat(target, text, []),
      runTurn: cronTurnRunner(() => this.engine()),
      runCommand: cronCommandRunner(core, options.env, (line) => logs.gateway.error(line)),
    });
    const machine = gatewayMachine.provide({
      actors: {
        start: fromPromise(() => this.startUp()),
        drain: fromPromise<void, { signal?: string }>(({ input }) => this.drain(input.signal)),
      },
    });
    this.machine = createActor(machine, { id: 'gateway', inspect: this.board.inspect });
    this.machine.subscribe({ error: (error) => logs.gateway.error('gateway actor failed', { reason: (error as Error)?.message ?? String(error) }) });
  }

  static async start(options: GatewayOptions): Promise<Gateway> {
    checkMcp(options.loaded.config);
    const { loaded, logs } = options;
    for (const fix of makeSecretsPrivate(loaded.home, loaded.path)) logs.gateway.warn(describeFix(fix));
    const workspaces = agentWorkspaces(loaded.config, loaded.home, loaded.workspace);
    for (const fix of makeWorkspacesPrivate(workspaces)) logs.gateway.warn(describeFix(fix));
    const core = RuntimeCore.open(options.loaded, 'gateway', {
      resume: true,
      ...(options.log ? { log: options.log } : {}),
      ...(options.journal ? { journal: options.journal } : {}),
    });
    const gateway = new Gateway(core, options);
    options.onRuntime?.(core);
    gateway.machine.start();
    const started = await waitFor(gateway.machine, (s) => s.value !== 'starting');
    if (started.value === 'running') return gateway;
    await gateway.shutDown();
    throw started.context.failure;
  }

  /**
   * The turn engine (agents, tools, models, MCP servers), loaded once: after every channel has reported, or
   * by the first heartbeat or cron turn before that. `/ready` never waits for it; work routed before waits on the bus.
   */
  engine(): Promise<Runtime> {
    this.engineLoad ??= import('../runtime.js').then(({ Runtime }) => {
      const runtime = Runtime.on(this.core, {
        env: this.options.env,
        logError: (line) => this.options.logs.gateway.error(line),
        send: (target, text, media) => this.sendToChat(target, text, media),
        fetchMedia: (channel, fileId, messageId, name) => this.fetchMedia(channel, fileId, messageId, name),
        log: (level, message, fields) => this.options.logs.gateway.log(level, message, fields),
      });
      this.loadedEngine = runtime;
      this.markEngineLoaded();
      this.startPluginChannels(runtime);
      return runtime;
    });
    return this.engineLoad;
  }

  get url(): string {
    return this.health?.url ?? '';
  }

  readiness(): Readiness {
    const actors = [...this.actors.values()];
    const reported = actors.every((a) => a.reported);
    // A platform's error may quote the token it was sent: `/ready` is read by whoever can reach the port.
    const redactor = redactorOf(this.loaded.config);
    const channels = actors.map((a) => {
      const status = a.status;
      const failed = status.state === 'failed' || status.state === 'refused';
      return { name: a.id.name, state: status.state, ...(failed ? { reason: redactor.text(status.reason) } : {}) };
    });
    const log = this.core.bus.logHealth();
    return {
      reported,
      ready: reported && channels.every((c) => c.state !== 'refused'),
      channels,
      ...(log.state === 'failing' ? { log } : {}),
    };
  }

  /** The running channel whose webhook route is `path`. */
  private webhookRoute(path: string): ((request: WebhookRequest) => Promise<WebhookAnswer>) | undefined {
    for (const actor of this.actors.values()) {
      const channel = this.directory.get(actor.id.name);
      if (channel?.webhook && (channel.webhookPath ?? webhookPath(actor.id.kind, actor.id.name)) === path) {
        return (request) => channel.webhook!(request);
      }
    }
    return undefined;
  }

  /** Drains and stops; resolves once the log is closed and the work left behind has settled (or timed out). */
  async stop(signal?: string): Promise<void> {
    if (this.machine.getSnapshot().value !== 'running') return;
    this.core.bus.publish({ type: 'gateway.stopping', data: signal ? { signal } : {} });
    this.machine.send({ type: 'STOP', ...(signal ? { signal } : {}) });
    await waitFor(this.machine, (s) => s.value === 'stopped');
    await this.shutDown();
    // A cron run or config reload in flight (its turn ended with the engine, a cron command by cron.stop) is done and
    // logged before the stop returns: the host closes the log files next, and a line written after that would land in
    // whatever file reuses their descriptors.
    const settled = await settledWithin([this.cron.settled(), this.reloads.settled(), this.outbox.settled()], this.options.leftWorkMs ?? LEFT_WORK_MS);
    if (!settled) this.options.logs.gateway.warn('work still in flight at the stop (a send, a heartbeat or cron run) is left behind');
    this.toolCalls.unsubscribe();
    this.options.logs.gateway.info('gateway stopped', { signal });
  }

  /** The start: health server, channels, dispatcher, outbox, heartbeat and config watch (`starting` → `running`). */
  private async startUp(): Promise<void> {
    const { options } = this;
    // Work routed before the channels have reported loads the engine at once rather than waiting for it.
    this.engineWait = this.core.bus.on('message.routed', 'turn.stop.requested').subscribe(() => {
      this.engineWait?.unsubscribe();
      this.engine().catch((error: unknown) => options.logs.gateway.error('agents not started', { reason: (error as Error).message }));
    });
    const { host, port } = options.loaded.config.gateway;
    const webhooks = (path: string) => this.webhookRoute(path);
    this.health = options.health === 'none' ? undefined : await startHealthServer(host, port, () => this.readiness(), webhooks).catch((error: unknown) => {
      if (options.health !== 'optional') throw error;
      options.logs.gateway.warn('health server not started', { address: `${host}:${port}`, reason: (error as Error).message });
      return undefined;
    });
    this.dispatcher.start();
    this.outbox.start();
    for (const [name, entry] of enabledChannels(options.loaded, options)) if (!pluginKind(name, entry, options, options.loaded.config)) this.startChannel(name, entry);
    // One line per channel that is open to everyone, or closed with pairing (a peer runtime's config with an empty
    // allow_from answered everyone): whoever reads the log knows who may talk to the bot.
    for (const [name, entry] of enabledChannels(options.loaded, options)) {
      const notice = (entry.type ?? name) === WEB_UI_CHANNEL_TYPE ? undefined : accessNotice(name, channelAccess(entry));
      if (notice) options.logs.gateway.warn(notice.text);
    }
    this.desk.start();
    this.pairingFollow = followPairing(this.desk, this.scheduler, () => this.loaded.config.power.poll_interval_multiplier, (error) =>
      options.logs.gateway.error('pairing decisions not read', { reason: (error as Error)?.message ?? String(error) }));
    if (this.scheduling) this.heartbeat.start();
    this.mediaCleanup.start();
    this.continueOnceReady();
    this.watch();
    this.core.bus.publish({ type: 'gateway.started', data: { pid: process.pid, channels: [...this.actors.keys()] } });
    options.logs.gateway.info('gateway started', { url: this.url, channels: [...this.actors.keys()].join(',') || 'none' });
  }

  /** `draining`: nothing new starts, running turns finish or time out, their replies go out, channels stop. */
  private async drain(signal: string | undefined): Promise<void> {
    const { logs } = this.options;
    void signal;
    this.stopping = true;
    this.watcher?.stop();
    this.heartbeat.stop();
    this.mediaCleanup.stop();
    this.pairingFollow?.stop();
    this.desk.stop();
    this.cronWait?.unsubscribe();
    clearTimeout(this.backgroundStart);
    // A stop never overlaps the cron start, which would schedule the next store poll after it.
    await this.cronChange;
    this.cron.stop();
    // Running turns finish and their replies go out before the channels stop; spawned subagents drain alongside
    // them, and what still runs after that is canceled with the engine.
    const drainMs = this.options.drainMs ?? 10_000;
    const drained = (this.loadedEngine?.drain() ?? Promise.resolve()).then(() => this.outbox.settled());
    const [finished] = await Promise.all([settledWithin([drained], drainMs), this.engineLoad?.then((engine) => engine.subagents.drain(drainMs, STOP_REASON), () => undefined)]);
    if (!finished) logs.gateway.warn('running turns did not finish in time and are aborted');
    this.dispatcher.stop();
    this.approvals.unsubscribe();
    this.outbox.stop();
    await Promise.all([...this.actors.values()].map((a) => a.stop()));
    this.deliveries.close();
    await this.health?.close();
  }

  /** After `stopped`: ends running turns (once the engine is loaded), flushes the log and closes it. */
  private async shutDown(): Promise<void> {
    this.cronWait?.unsubscribe();
    this.engineWait?.unsubscribe();
    this.approvals.unsubscribe();
    clearTimeout(this.backgroundStart);
    if (this.machine.getSnapshot().context.failure !== undefined) {
      this.toolCalls.unsubscribe();
      await Promise.all([...this.actors.values()].map((a) => a.stop()));
      await this.health?.close();
    }
    const engine = await this.engineLoad?.catch(() => undefined);
    await (engine ? engine.close({ reason: STOP_REASON }) : this.core.close());
    this.logHealth.unsubscribe();
    const log = this.core.bus.logHealth();
    if (log.state === 'failing') {
      const message =
        'stopped while the event log could not write: what it held was not written; messages not acknowledged ' +
        'come back from their platforms at the next start';
      this.options.logs.gateway.error(message, { waiting: log.waiting, reason: log.reason });
    }
  }

  private startChannel(name: string, entry: ChannelEntry): void {
    const multiplier = this.loaded.config.power.poll_interval_multiplier;
    const kind = entry.type ?? name;
    const hosted = this.options.hostChannels?.[kind];
    const builtIn = (n: string, e: ChannelEntry) => createChannel(n, e, multiplier);
    const build = hosted ?? this.options.createChannel ?? (pluginKind(name, entry, this.options, this.loaded.config) ? (n: string, e: ChannelEntry) => this.pluginChannel(n, e, builtIn) : builtIn);
    const backoff = supervisionOf(entry).restart_backoff_ms;
    const redacted = async (): Promise<Channel> => new RedactingChannel(await build(name, this.loaded.config.channel_list[name] ?? entry), () => redactorOf(this.loaded.config));
    const actor = new ChannelActor({ name, kind, account: name === kind ? 'default' : name }, redacted, {
      bus: this.core.bus,
      logger: this.options.logs.gateway,
      clock: this.clock,
      backoff: { baseMs: backoff, maxMs: Math.max(backoff, 60_000) },
      directory: this.directory,
      inspect: this.board.inspect,
      accept: acceptInbound({ bus: this.core.bus, logger: this.options.logs.gateway, config: () => this.loaded.config, workspace: this.loaded.workspace, now: () => this.scheduler.now(), seen: this.seen, pairing: this.pairing }),
    });
    this.actors.set(name, actor);
    actor.start();
  }

  /** A channel of a kind a plugin added; a kind no plugin added fails as unsupported, as before. */
  private async pluginChannel(name: string, entry: ChannelEntry, builtIn: (name: string, entry: ChannelEntry) => Promise<Channel>): Promise<Channel> {
    const engine = await this.engine();
    await engine.plugins.load();
    const spec = engine.plugins.channelKind(entry.type ?? name);
    if (!spec) return builtIn(name, entry);
    const settings = Object.fromEntries(Object.entries(entry.settings).map(([key, value]) => [key, isSecret(value) ? value.reveal() : value]));
    return spec.create(settings, name);
  }

  /** Channels of plugin kinds start once the plugins have loaded. */
  private startPluginChannels(engine: Runtime): void {
    void engine.plugins.load().then(() => {
      if (this.stopping) return;
      for (const [name, entry] of enabledChannels(this.loaded, this.options)) if (pluginKind(name, entry, this.options, this.loaded.config) && !this.actors.has(name)) this.startChannel(name, entry);
    });
  }

  /**
   * The turn engine loads, and cron opens its store and reads its jobs, shortly after every channel has reported:
   * that work then never delays `/ready`, and a job due at start finds its channel connected.
   */
  private continueOnceReady(): void {
    const start = (): void => {
      this.engine().catch((error: unknown) => this.options.logs.gateway.error('agents not started', { reason: (error as Error).message }));
      void this.reportIsolation();
      this.backgroundStarted = true;
      this.syncCron('the gateway is starting');
    };
    const startSoon = (): void => {
      this.cronWait?.unsubscribe();
      this.backgroundStart = setTimeout(start, BACKGROUND_START_DELAY_MS);
    };
    if (this.readiness().reported) return startSoon();
    // A channel's report is published by its machine's move, before the move is done: its state is read after it.
    this.cronWait = this.core.bus.on('channel.connected', 'channel.failed').subscribe(() =>
      queueMicrotask(() => {
        if (this.readiness().reported && !this.backgroundStart) startSoon();
      }),
    );
  }

  /**
   * Brings cron to what the gateway wants now (running while it schedules, once the background start has run), one
   * change at a time; a stop says `reason` on the board.
   */
  private syncCron(reason: string): void {
    this.cronChange = Promise.resolve(this.cronChange)
      .then(async () => {
        const wanted = this.scheduling && this.backgroundStarted && !this.stopping;
        if (wanted === this.cronRuns) return;
        this.cronRuns = wanted;
        if (wanted) await this.cron.start();
        else this.cron.stop(reason);
      })
      .catch((error: unknown) => this.options.logs.gateway.error('cron not started', { reason: (error as Error).message }));
  }

  /**
   * Starts or stops the heartbeat and cron while the gateway runs: a cluster member runs them only while it holds the
   * cluster's schedule lease (#27), so they run once per cluster. A run in flight when they stop finishes and is
   * recorded; cron started again runs a job it missed meanwhile once.
   */
  setScheduled(on: boolean, reason: string): void {
    if (this.scheduling === on || this.stopping) return;
    this.scheduling = on;
    this.options.logs.gateway.info(on ? 'heartbeat and cron run here' : 'heartbeat and cron stop here', { reason });
    if (on) this.heartbeat.start();
    else this.heartbeat.stop();
    this.syncCron(reason);
  }

  /** Once per start: exec without bubblewrap is worth one warning (and a refused exec one error). */
  private async reportIsolation(): Promise<void> {
    const { execIsolationState } = await import('../wiring/exec-isolation.js');
    const { describeIsolation } = await import('../../adapters/tools/exec/isolation.js');
    const state = await execIsolationState(this.loaded.config);
    // Isolated with warnings: the sandbox's network is cut (no slirp4netns) or a limit is not enforced here.
    const degraded = state?.kind === 'isolated' && state.warnings.length > 0;
    if (state?.kind === 'guard_only' || degraded) this.options.logs.gateway.warn(describeIsolation(state));
    if (state?.kind === 'refused') this.options.logs.gateway.error(describeIsolation(state));
  }

  /** Hot reload: channels whose entry changed restart, the rest keep running; rules and heartbeat follow the new config. */
  private watch(): void {
    // Every 2 s × power.poll_interval_multiplier (as reloaded), on the gateway's clock.
    this.watcher = watchConfig({
      bus: this.core.bus,
      env: this.options.env,
      path: this.loaded.path,
      timer: this.scheduler,
      log: (line) => this.options.logs.gateway.warn(line),
      onChange: (loaded) => this.trackReload(this.reload(this.options.adjustConfig?.(loaded) ?? loaded)),
    });
  }

  /** A reload never throws into the watcher's timer; `stop()` waits for it. */
  private trackReload(reload: Promise<void>): void {
    const work = reload.catch((error: unknown) => this.options.logs.gateway.error('config reload failed', { reason: (error as Error)?.message ?? String(error) }));
    void this.reloads.track(work);
  }

  private async reload(next: LoadedConfig): Promise<void> {
    const before = this.loaded.config;
    const changed = changedPaths(before, next.config);
    this.loaded = next;
    this.core.loaded.config = next.config;
    // An engine not loaded yet is built from the new config.
    if (changed.some((p) => p.startsWith('model_list'))) void this.engineLoad?.then((engine) => this.reloadModels(engine, next), () => undefined);
    // MCP servers follow at once, not at the next turn: a removed server's process does not outlive the edit.
    if (changed.some((p) => p.startsWith('tools.mcp'))) void this.engineLoad?.then((engine) => engine.followMcp(), () => undefined);
    const touched = new Set(changed.filter((p) => p.startsWith('channel_list')).map((p) => p.split('.')[1] ?? ''));
    const all = touched.has('') ? new Set([...this.actors.keys(), ...Object.keys(next.config.channel_list)]) : touched;
    for (const name of all) {
      await this.actors.get(name)?.stop();
      if (this.stopping) return;
      this.actors.delete(name);
      const entry = next.config.channel_list[name];
      if (entry && runs(entry, this.options)) this.startChannel(name, entry);
    }
    if (this.scheduling && changed.some((p) => p.startsWith('heartbeat') || p.startsWith('power'))) this.heartbeat.start();
    if (changed.some((p) => p.startsWith('tools.media_cleanup') || p.startsWith('power'))) this.mediaCleanup.start();
    this.options.logs.gateway.info('config reloaded', { changed: changed.join(',') });
  }

  /** The next model call uses the new `model_list` (`agents.defaults.model` is read per turn anyway). */
  private reloadModels(engine: Runtime, next: LoadedConfig): void {
    try {
      engine.router.reload(next.config);
    } catch (error) {
      this.options.logs.gateway.error('model_list not reloaded; the previous models stay', { reason: (error as Error).message });
    }
  }

  /** A file a user sent, fetched from its channel and saved under the workspace. */
  private async fetchMedia(channelName: string, fileId: string, messageId: string, name: string): Promise<string> {
    const channel = this.directory.get(channelName);
    if (!channel?.download) throw new Error(`channel ${channelName} cannot fetch files now`);
    return saveInboundMedia(this.loaded.workspace, messageId, name, await channel.download(fileId));
  }

  /**
   * What the `message`, `send_file` and `image_generate` tools send, through the same outbox as replies: files go as
   * files (a photo where the channel shows images) with the text as their caption; a channel that cannot send files
   * gets them named by their path under the text.
   */
  private async sendToChat(wanted: SendTarget, text: string, media: ToolMedia[]): Promise<SendOutcome> {
    const target = this.chatOf(wanted);
    // Turns name their channel by kind (`telegram`), the tool's caller may name an entry: either is found.
    const actor = this.actors.get(target.channel) ?? [...this.actors.values()].find((a) => a.id.kind === target.channel);
    if (!actor && !this.options.relay) throw new Error(`no channel "${target.channel}" is running (running: ${[...this.actors.keys()].join(', ') || 'none'})`);
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // A chat is `direct:<id>`, `group:<id>` or `channel:<id>`; the platform address is the id.
    const replyTo = target.chat.replace(/^(direct|group|channel):/, '');
    const files = media.map((m) => ({ kind: m.kind, path: m.path, ...(m.mime ? { mime: m.mime } : {}) }));
    const reply = { channel: actor?.id.name ?? target.channel, chat: target.chat, reply_to: replyTo };
    const outcome = await this.deliver({ message_id: `tool_${id}`, key: `tool:${id}:message`, text, reply, outcome: 'message', ...(files.length > 0 ? { files } : {}) });
    // A gateway that tried and failed is a failure of the call, which the tool reports as an error.
    if (outcome.kind === 'not_delivered') throw new Error(`the message could not be delivered to ${reply.channel}`);
    return outcome;
  }

  /**
   * Text that is not a turn's reply: through this gateway's outbox when it runs the channel (`sent` once every part is
   * out), else relayed to the gateway that does (`relayed` once accepted there, not yet out); `not_delivered` when
   * no gateway can take it or a part did not go out.
   */
  private async deliver(delivery: Delivery): Promise<SendOutcome> {
    const { channel } = delivery.reply;
    if (this.actors.has(channel)) {
      return (await this.deliveries.send(delivery)) ? { kind: 'sent' } : { kind: 'not_delivered', reason: `not every part went out on ${channel}` };
    }
    if (!this.options.relay) return { kind: 'not_delivered', reason: `no channel "${channel}" runs here` };
    return { kind: 'relayed', to: await this.options.relay(delivery) };
  }

  /**
   * The heartbeat's own chat (channel `system`) is nobody's: its turn's `message` calls, and those of the subagents
   * it spawns, reach the user in the last active chat, as its answer does.
   */
  private chatOf(target: SendTarget): SendTarget {
    if (target.channel !== 'system') return target;
    const last = readLastChannel(this.loaded.workspace);
    if (!last) throw new Error('no chat has been active yet, so there is no one to send to');
    return { channel: last.channel, chat: last.chat };
  }
}

import type { Subscription } from 'rxjs';
import {
  createActor,
  fromCallback,
  fromPromise,
  waitFor,
  type Actor,
  type AnyActorRef,
  type SnapshotFrom,
} from 'xstate';
import type { Envelope, EventData } from '../../bus/index.js';
import type { Channel, WebhookAnswer, WebhookRequest } from '../../adapters/channels/channel.js';
import { webhookPath } from '../../adapters/channels/webhook-path.js';
import type { ReplyTarget } from '../../bus/index.js';
import { RedactingChannel } from '../../adapters/channels/redacting-channel.js';
import { mcpOptionsFromConfig } from '../../adapters/mcp/from-config.js';
import { McpConfigError, mcpConfigProblems } from '../../adapters/mcp/options.js';
import type { SendOutcome, SendTarget } from '../../adapters/tools/options.js';
import type { ToolMedia } from '../../adapters/tools/tool.js';
import { channelBoard, type channelMachine } from '../../machines/channel.js';
import { cronBoard } from '../../machines/cron.js';
import {
  channelId,
  gatewayBoard,
  gatewayMachine,
  startedWith,
  type ChannelSpec,
  type GatewayEvent,
  type StartOutput,
} from '../../machines/gateway.js';
import { heartbeatBoard } from '../../machines/heartbeat.js';
import { isSecret, redactorOf, watchConfig, WEB_UI_CHANNEL_TYPE } from '../../store/config/index.js';
import { pollMultiplier } from '../../store/config/poll-multiplier.js';
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
import type { Runtime } from '../runtime.js';
import { RuntimeCore } from '../runtime-core.js';
import { channelLogic, channelStatus, reported } from './channel-actor.js';
import { promptApprovals } from './approval-prompts.js';
import { showToolFeedback } from './tool-feedback.js';
import { postReasoning } from './reasoning-posts.js';
import { echoTranscripts } from './transcript-echo.js';
import { ChannelDirectory } from './channel-directory.js';
import { createChannel, supervisionOf, SUPPORTED_KINDS } from './channel-factory.js';
import { Deliveries, type Delivery } from '../deliveries.js';
import { Dispatcher } from './dispatcher.js';
import { startHealthServer, type HealthServer, type Readiness } from './health-server.js';
import { Heartbeat } from './heartbeat.js';
import { LogCompaction } from './log-compaction.js';
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
import { logEvents } from './event-log.js';
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
  /**
   * Channel kinds the host builds in its own process (the launcher's `pico`); an entry of such a kind runs only when
   * given here.
   */
  hostChannels?: Partial<Record<string, (name: string, entry: ChannelEntry) => Promise<Channel>>>;
  /**
   * Applied to the config at every reload, as the host applied it to `loaded` (the launcher adds its web-UI channel).
   */
  adjustConfig?: (loaded: LoadedConfig) => LoadedConfig;
  /**
   * `optional`: a busy `gateway.host:port` is logged and the gateway runs without `/health` (the launcher must not
   * fail). `none`: no health server (a channel account's gateway inside a cluster member, which serves `/health` once).
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
  /**
   * A cluster account's inbound, handed to the member serving its session instead of run here (#40): the account's
   * holder polls and forwards, a partition's gateway takes the messages in (`accept`) and runs them.
   */
  forward?: (sessionKey: string, message: EventData<'message.received'>) => Promise<void>;
  /**
   * Replies for a channel this gateway does not run go to whoever runs it (`relay`) as one text each, recorded here as
   * delivered once queued there: a gateway serving a cluster account's sessions (#40).
   */
  relayReplies?: boolean;
  /** Called before the gateway publishes its first event, so a host following the bus sees `gateway.started`. */
  onRuntime?: (core: RuntimeCore) => void;
}

/**
 * How long the stop waits for what runs after the drain (a reply going out, a cron run being recorded) by default: a
 * send the platform never answers must not hold it (the Bot API transport allows a call 510 s).
 */
const LEFT_WORK_MS = 10_000;
/** Inbound ids remembered against redeliveries. */
const SEEN_INBOUND = 10_000;
/** Why subagent tasks still running at a stop are canceled, as their `subagent.ended` records it. */
const STOP_REASON = 'the gateway is stopping';

/** A reply handed whole to the gateway running its channel, as the relayed texts are (#40). */
function relayOf(
  relay: (delivery: Delivery) => Promise<string>,
): (event: Envelope<'reply.requested'>) => Promise<void> {
  return async ({ data }) => {
    await relay({ ...data, reply: data.reply! });
  };
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
  if (
    options.createChannel !== undefined ||
    options.hostChannels?.[kind] !== undefined ||
    (SUPPORTED_KINDS as readonly string[]).includes(kind)
  )
    return false;
  return (
    config.plugins.enabled && Object.values(config.plugins.entries).some((plugin) => plugin.enabled && plugin.trusted)
  );
}

/** What the gateway's channel actor for an entry starts from. */
function specOf(name: string, entry: ChannelEntry): ChannelSpec {
  const kind = entry.type ?? name;
  const backoff = supervisionOf(entry).restart_backoff_ms;
  const account = name === kind ? 'default' : name;
  return { name, kind, account, backoff: { baseMs: backoff, maxMs: Math.max(backoff, 60_000) } };
}

/** What `engine()` throws once the gateway stops without having loaded the engine. */
export class GatewayStoppedError extends Error {
  readonly code = 'gateway_stopped';
  constructor() {
    super('the gateway stopped before the engine loaded');
  }
}

const stoppedOrDraining = (s: GatewaySnapshot): boolean => s.status !== 'active' || s.matches('draining');

/** An error's message for a log line. */
function reasonOf(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}

function enabledChannels(loaded: LoadedConfig): Array<[string, ChannelEntry]> {
  return Object.entries(loaded.config.channel_list).filter(([, entry]) => entry.enabled);
}

declare module '../../machines/gateway.js' {
  interface GatewayRegister {
    loaded: LoadedConfig;
    engine: Runtime;
  }
}

type GatewayActor = Actor<typeof gatewayMachine>;
type GatewaySnapshot = SnapshotFrom<typeof gatewayMachine>;
type ChannelSnapshot = SnapshotFrom<typeof channelMachine>;

/** The gateway's channel children, by entry name, with their machines' snapshots. */
function channelsOf(snapshot: GatewaySnapshot): Array<{ name: string; snapshot: ChannelSnapshot }> {
  return Object.entries(snapshot.children as Record<string, AnyActorRef | undefined>).flatMap(([id, child]) => {
    if (!id.startsWith('channel:') || !child) return [];
    return [{ name: id.slice('channel:'.length), snapshot: child.getSnapshot() as ChannelSnapshot }];
  });
}

/**
 * `tern gateway`: one runtime core (log and bus) and the gateway machine, which supervises a channel actor per
 * enabled account, the dispatcher, the outbox, the heartbeat, cron, config hot reload and the engine's load. This
 * class is what the machine is provided with and how hosts talk to it: it holds references, never state. `stop()`
 * drains: no new turns, running turns get `drainMs`, their replies go out, then channels stop and the log is flushed
 * and closed; work accepted and not finished stays in the log for the next start.
 */
export class Gateway {
  private readonly directory = new ChannelDirectory();
  private readonly board: BoardInspector;
  private readonly dispatcher: Dispatcher;
  private readonly outbox: Outbox;
  private readonly deliveries: Deliveries;
  private readonly heartbeat: Heartbeat;
  private readonly mediaCleanup: MediaCleanup;
  private readonly logCompaction: LogCompaction;
  private readonly cron: CronActor;
  private readonly scheduler: Scheduler;
  private readonly clock: ActorClock;
  private readonly machine: GatewayActor;
  private readonly seen = new RecentIds(SEEN_INBOUND);
  /** Who may talk to channels without `allow_from`: the owner's pairing decisions, and the desk that takes them. */
  private readonly pairing: PairingStore;
  private readonly desk: PairingDesk;
  private readonly approvals: Subscription;
  private readonly logHealth: Subscription;
  private readonly toolCalls: Subscription;

  private constructor(
    readonly core: RuntimeCore,
    private readonly options: GatewayOptions,
  ) {
    this.scheduler = options.scheduler ?? realScheduler;
    this.clock = clockOf(this.scheduler);
    const { bus } = core;
    const { logs } = options;
    this.board = new BoardInspector(bus, {
      gateway: gatewayBoard,
      heartbeat: heartbeatBoard,
      channel: channelBoard,
      cron: cronBoard,
    });
    this.deliveries = new Deliveries(bus);
    this.pairing = new PairingStore(options.loaded.home);
    this.desk = new PairingDesk({
      bus,
      store: this.pairing,
      now: () => this.scheduler.now(),
      notify: {
        runs: (channel) => this.runsChannel(channel),
        send: ({ channel, chat, reply_to, code }) =>
          void this.deliveries.send({
            message_id: `pairing-${code}`,
            key: `${channel}:pairing-${code}:approved`,
            text: APPROVED_NOTICE,
            reply: { channel, chat, reply_to },
            outcome: 'message',
          }),
      },
    });
    this.dispatcher = new Dispatcher({
      bus,
      logger: logs.gateway,
      config: () => this.loaded.config,
      isLocal: (name) => this.directory.get(name)?.capabilities.local === true,
      ...(options.forward ? { forward: options.forward } : {}),
    });
    this.outbox = new Outbox({
      bus,
      logger: logs.gateway,
      directory: this.directory,
      entry: (name) => this.loaded.config.channel_list[name],
      now: () => this.scheduler.now(),
      sent: core.recovered.sentKeys,
      placeholders: core.recovered.placeholders,
      ...(core.journal ? { journal: core.journal } : {}),
      splitOnMarker: () => this.loaded.config.agents.defaults.split_on_marker,
      ...(options.relayReplies && options.relay ? { relay: relayOf(options.relay) } : {}),
    });
    for (const id of core.recovered.seenInbound) this.seen.add(id);
    for (const part of core.recovered.unconfirmed) {
      logs.gateway.warn(
        'a reply part was being sent when the process ended: it is not sent again and may be missing from the chat',
        part,
      );
    }
    this.approvals = promptApprovals(bus, this.deliveries, logs.gateway);
    // Tool notices go to the chat with the approval questions, and stop with them.
    const feedback = () => this.loaded.config.agents.defaults.tool_feedback;
    this.approvals.add(showToolFeedback(bus, this.deliveries, feedback, logs.gateway));
    this.approvals.add(postReasoning(bus, this.deliveries, (name) => this.reasoningTarget(name), logs.gateway));
    const echo = () => this.loaded.config.voice.echo_transcription;
    this.approvals.add(echoTranscripts(bus, this.deliveries, echo, logs.gateway));
    this.logHealth = bus.on('log.failed', 'log.recovered').subscribe((e) => {
      if (e.type === 'log.failed') {
        const { code, reason } = e.data;
        logs.gateway.error('the event log cannot write; new messages wait at their platforms', { code, reason });
      } else logs.gateway.info('the event log writes again', { failed_ms: e.data.failed_ms });
    });
    this.toolCalls = logToolCalls(bus, logs);
    // Events come before the machine exists (the start's own): they are read with the config the host loaded.
    const events = () => (this.machine === undefined ? options.loaded : this.loaded).config.events.logging;
    this.toolCalls.add(logEvents(bus, events, logs.gateway));
    this.heartbeat = new Heartbeat({
      engine: () => this.engine(),
      loadedEngine: () => this.snapshot.context.engine,
      bus,
      logger: logs.heartbeat,
      clock: this.clock,
      now: () => this.scheduler.now(),
      config: () => this.loaded.config,
      workspace: options.loaded.workspace,
      deliver: (delivery) => this.deliver(delivery),
      inspect: this.board.inspect,
    });
    const { workspace } = options.loaded;
    const config = () => this.loaded.config;
    this.mediaCleanup = new MediaCleanup({ scheduler: this.scheduler, config, workspace, logger: logs.gateway });
    this.logCompaction = new LogCompaction({ scheduler: this.scheduler, config, log: core.log, logger: logs.gateway });
    this.cron = new CronActor({
      workspace: options.loaded.workspace,
      bus,
      scheduler: this.scheduler,
      config: () => this.loaded.config,
      logger: logs.gateway,
      send: (target, text) => this.sendToChat(target, text, []),
      runTurn: cronTurnRunner(() => this.engine()),
      runCommand: cronCommandRunner(core, options.env, (line) => logs.gateway.error(line)),
    });
    this.machine = createActor(this.provided(), {
      id: 'gateway',
      input: { loaded: options.loaded, scheduled: options.scheduled !== false },
      inspect: this.board.inspect,
      clock: this.clock,
    });
    const failed = (error: unknown) => logs.gateway.error('gateway actor failed', { reason: reasonOf(error) });
    this.machine.subscribe({ error: failed });
  }

  /** The gateway machine with this gateway's effects. */
  private provided() {
    const { options } = this;
    const { logs } = options;
    const { bus } = this.core;
    const logError = (what: string) => (error: unknown) => logs.gateway.error(what, { reason: reasonOf(error) });
    return gatewayMachine.provide({
      actors: {
        start: fromPromise(() => this.startUp()),
        dispatcher: fromCallback(() => {
          this.dispatcher.start();
          return () => this.dispatcher.stop();
        }),
        outbox: fromCallback(() => {
          this.outbox.start();
          return () => this.outbox.stop();
        }),
        channel: channelLogic({
          bus,
          logger: logs.gateway,
          directory: this.directory,
          build: (name) => this.buildChannel(name),
          accept: acceptInbound({
            bus,
            logger: logs.gateway,
            config: () => this.loaded.config,
            workspace: options.loaded.workspace,
            now: () => this.scheduler.now(),
            seen: this.seen,
            pairing: this.pairing,
          }),
        }),
        readiness: fromCallback(({ sendBack }) => {
          const check = (): void => {
            if (this.readiness().reported) sendBack({ type: 'REPORTED' });
          };
          // A channel's report is published by its machine's move, before the move is done: its state is read after it.
          const reports = bus.on('channel.connected', 'channel.failed').subscribe(() => queueMicrotask(check));
          queueMicrotask(check);
          return () => reports.unsubscribe();
        }),
        // Work routed before the channels have reported loads the engine at once rather than waiting for it.
        demand: fromCallback(({ sendBack }) => {
          const wanted = () => sendBack({ type: 'ENGINE_WANTED' });
          const routed = bus.on('message.routed', 'turn.stop.requested').subscribe(wanted);
          return () => routed.unsubscribe();
        }),
        engine: fromPromise(() => this.loadEngine()),
        services: fromCallback(() => {
          this.mediaCleanup.start();
          this.logCompaction.start();
          this.desk.start();
          const multiplier = () => pollMultiplier(this.loaded.config.power);
          const follow = followPairing(this.desk, this.scheduler, multiplier, logError('pairing decisions not read'));
          return () => {
            this.mediaCleanup.stop();
            void this.logCompaction.stop();
            follow.stop();
            this.desk.stop();
          };
        }),
        heartbeat: fromCallback(() => {
          this.heartbeat.start();
          return () => this.heartbeat.stop();
        }),
        cron: this.cron.logic,
        configWatch: fromCallback(({ sendBack }) => {
          if (!options.loaded.config.gateway.hot_reload) {
            logs.gateway.info('config edits apply at restart (gateway.hot_reload is false)');
            return undefined;
          }
          // Every 2 s × power.poll_interval_multiplier (as reloaded), on the gateway's clock.
          const watcher = watchConfig({
            bus,
            env: options.env,
            path: options.loaded.path,
            // The config as read from its files; a host that adjusts it (the launcher's web chat) lets the watch read
            // them.
            ...(options.adjustConfig ? {} : { loaded: options.loaded }),
            timer: this.scheduler,
            log: (line) => logs.gateway.warn(line),
            onChange: (loaded) => {
              const reload = this.reloadOf(options.adjustConfig?.(loaded) ?? loaded);
              sendBack(reload);
              // Read after the machine took the new config: the heartbeat and media cleanup read it as they restart.
              if (reload.type === 'RELOAD') this.followReload(reload.loaded, reload.changed);
            },
          });
          return () => watcher.stop();
        }),
        channelsStopped: fromPromise<void, { names: readonly string[] }>(async ({ input }) => {
          await Promise.all(input.names.map((name) => this.directory.stopped(name)));
        }),
        drain: fromPromise<void, { signal?: string }>(() => this.drain()),
        close: fromPromise<void, { names: readonly string[] }>(async ({ input }) => {
          await Promise.all(input.names.map((name) => this.directory.stopped(name)));
          this.deliveries.close();
          await this.snapshot.context.health?.close();
        }),
      },
      actions: {
        // Entering `running`, before the snapshot that has the spawned channels: they are read from the start.
        started: ({ context, event }) => {
          const channels = startedWith(event)?.channels.map((c) => c.name) ?? [];
          bus.publish({ type: 'gateway.started', data: { pid: process.pid, channels } });
          logs.gateway.info('gateway started', {
            url: context.health?.url ?? '',
            channels: channels.join(',') || 'none',
          });
        },
        engineLoaded: ({ context }) => {
          if (context.engine) this.startPluginChannels(context.engine);
        },
        engineFailed: ({ context }) => logError('agents not started')(context.engineFailure),
        backgroundStarted: () => void this.reportIsolation(),
        scheduleChanged: ({ event }) => {
          if (event.type !== 'SCHEDULE') return;
          const line = event.on ? 'heartbeat and cron run here' : 'heartbeat and cron stop here';
          logs.gateway.info(line, { reason: event.reason });
        },
        reloaded: ({ context }) => logs.gateway.info('config reloaded', { changed: context.changed.join(',') }),
        // A schedule change says why each job leaves the board; anything else is the gateway stopping.
        cronStopping: ({ event, self }) => {
          const reason = event.type === 'SCHEDULE' ? event.reason : 'the gateway is stopping';
          for (const id of CronActor.jobActors(self.getSnapshot().children.cron)) this.board.stopped(id, reason);
        },
      },
    });
  }

  private get snapshot(): GatewaySnapshot {
    return this.machine.getSnapshot();
  }

  /** The config as last loaded (a reload replaces it in the machine's context). */
  private get loaded(): LoadedConfig {
    return this.snapshot.context.loaded;
  }

  private runsChannel(name: string): boolean {
    return this.snapshot.children[channelId(name)] !== undefined;
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
    const started = await waitFor(gateway.machine, (s) => !s.matches('starting'));
    if (started.matches('running')) return gateway;
    await gateway.shutDown();
    throw started.context.failure;
  }

  /**
   * The turn engine (agents, tools, models, MCP servers), loaded once: after every channel has reported, or
   * by the first heartbeat or cron turn before that. `/ready` never waits for it; work routed before waits on the bus.
   */
  async engine(): Promise<Runtime> {
    this.machine.send({ type: 'ENGINE_WANTED' });
    const settled = await waitFor(
      this.machine,
      (s) => s.context.engine !== undefined || s.context.engineFailure !== undefined || stoppedOrDraining(s),
      { timeout: Infinity },
    );
    if (settled.context.engine) return settled.context.engine;
    if (settled.context.engineFailure !== undefined) throw settled.context.engineFailure;
    throw new GatewayStoppedError();
  }

  /** Settles once the turn engine has loaded, without loading it. */
  get engineLoaded(): Promise<void> {
    return waitFor(this.machine, (s) => s.context.engine !== undefined, { timeout: Infinity }).then(() => undefined);
  }

  private loadEngine(): Promise<Runtime> {
    return import('../runtime.js').then(({ Runtime }) =>
      Runtime.on(this.core, {
        env: this.options.env,
        logError: (line) => this.options.logs.gateway.error(line),
        send: (target, text, media) => this.sendToChat(target, text, media),
        fetchMedia: (channel, fileId, messageId, name) => this.fetchMedia(channel, fileId, messageId, name),
        log: (level, message, fields) => this.options.logs.gateway.log(level, message, fields),
      }),
    );
  }

  get url(): string {
    return this.snapshot.context.health?.url ?? '';
  }

  readiness(): Readiness {
    const actors = channelsOf(this.snapshot).map(({ name, snapshot }) => ({ name, status: channelStatus(snapshot) }));
    // A platform's error may quote the token it was sent: `/ready` is read by whoever can reach the port.
    const redactor = redactorOf(this.loaded.config);
    const channels = actors.map(({ name, status }) => {
      const failed = status.state === 'failed' || status.state === 'refused';
      return { name, state: status.state, ...(failed ? { reason: redactor.text(status.reason) } : {}) };
    });
    const log = this.core.bus.logHealth();
    const isReported = actors.every((a) => reported(a.status));
    return {
      reported: isReported,
      ready: isReported && channels.every((c) => c.state !== 'refused'),
      channels,
      ...(log.state === 'failing' ? { log } : {}),
    };
  }

  /** The running channel that takes WebSocket upgrades at `path`. */
  private upgradeRoute(path: string): Channel['upgrade'] {
    for (const { name } of channelsOf(this.snapshot)) {
      const channel = this.directory.get(name);
      if (channel?.upgrade && channel.upgradePath === path) return (...request) => channel.upgrade!(...request);
    }
    return undefined;
  }

  /** The running channel whose webhook route is `path`. */
  private webhookRoute(path: string): ((request: WebhookRequest) => Promise<WebhookAnswer>) | undefined {
    for (const { name, snapshot } of channelsOf(this.snapshot)) {
      const channel = this.directory.get(name);
      if (channel?.webhook && (channel.webhookPath ?? webhookPath(snapshot.context.kind, name)) === path) {
        return (request) => channel.webhook!(request);
      }
    }
    return undefined;
  }

  /**
   * A message another gateway accepted from its channel (a cluster account's holder, #40) taken in as if this
   * gateway's channel had: recorded as `message.received` and routed here; a redelivery is dropped. Resolves once the
   * log has it.
   */
  async accept(message: EventData<'message.received'>): Promise<void> {
    if (this.seen.add(`${message.channel}:${message.message_id}`))
      this.core.bus.publish({ type: 'message.received', data: message });
    await this.core.bus.durable();
  }

  /** Drains and stops; resolves once the log is closed and the work left behind has settled (or timed out). */
  async stop(signal?: string): Promise<void> {
    if (!this.snapshot.matches('running') || this.snapshot.context.stopWanted) return;
    this.core.bus.publish({ type: 'gateway.stopping', data: signal ? { signal } : {} });
    // A reload the stop cuts short has stopped channels that are no longer children: the stop returns once their
    // instances have stopped too (the log may close first, as a platform's HTTP call can outlive it).
    const reloadStops = this.snapshot.context.pending.map((spec) => this.directory.stopped(spec.name));
    this.machine.send({ type: 'STOP', ...(signal ? { signal } : {}) });
    await waitFor(this.machine, (s) => s.status !== 'active', { timeout: Infinity });
    await this.shutDown();
    // A cron run in flight (its turn ended with the engine, a cron command by cron.stop) is done and logged before
    // the stop returns: the host closes the log files next, and a line written after that would land in whatever
    // file reuses their descriptors.
    const left = [this.cron.settled(), this.outbox.settled(), ...reloadStops];
    const settled = await settledWithin(left, this.options.leftWorkMs ?? LEFT_WORK_MS);
    if (!settled)
      this.options.logs.gateway.warn(
        'work still in flight at the stop (a send, a heartbeat or cron run) is left behind',
      );
    this.toolCalls.unsubscribe();
    this.options.logs.gateway.info('gateway stopped', { signal });
  }

  /**
   * The start (`starting`): the health server, and what the machine spawns once it is up. Channels of kinds a plugin
   * adds wait for the plugins (after `/ready`).
   */
  private async startUp(): Promise<StartOutput> {
    const { options } = this;
    const { host, port } = options.loaded.config.gateway;
    const webhooks = (path: string) => this.webhookRoute(path);
    const upgrades = (path: string) => this.upgradeRoute(path);
    const serve = () => startHealthServer(host, port, () => this.readiness(), webhooks, upgrades);
    const health: HealthServer | undefined =
      options.health === 'none'
        ? undefined
        : await serve().catch((error) => {
            if (options.health !== 'optional') throw error;
            const address = `${host}:${port}`;
            options.logs.gateway.warn('health server not started', { address, reason: (error as Error).message });
            return undefined;
          });
    const enabled = enabledChannels(options.loaded);
    // One line per channel that is open to everyone, or closed with pairing (a peer runtime's config with an empty
    // allow_from answered everyone): whoever reads the log knows who may talk to the bot.
    for (const [name, entry] of enabled) {
      // Only the launcher's own `pico` is the signed-in owner's chat; a gateway's is open to every token holder.
      const ownersChat = (entry.type ?? name) === WEB_UI_CHANNEL_TYPE && options.hostChannels?.[WEB_UI_CHANNEL_TYPE];
      const notice = ownersChat ? undefined : accessNotice(name, channelAccess(entry));
      if (notice) options.logs.gateway.warn(notice.text);
    }
    const channels = enabled
      .filter(([name, entry]) => !pluginKind(name, entry, options, options.loaded.config))
      .map(([name, entry]) => specOf(name, entry));
    return { ...(health ? { health: { url: health.url, close: () => health.close() } } : {}), channels };
  }

  /** `draining`: running turns finish or time out and their replies go out; the machine then stops the channels. */
  private async drain(): Promise<void> {
    const { logs } = this.options;
    const engine = this.snapshot.context.engine;
    // Running turns finish and their replies go out before the channels stop; spawned subagents drain alongside
    // them, and what still runs after that is canceled with the engine.
    const drainMs = this.options.drainMs ?? 10_000;
    const drained = (engine?.drain() ?? Promise.resolve()).then(() => this.outbox.settled());
    const subagents = engine?.subagents.drain(drainMs, STOP_REASON);
    const [finished] = await Promise.all([settledWithin([drained], drainMs), subagents]);
    if (!finished) logs.gateway.warn('running turns did not finish in time and are aborted');
    this.approvals.unsubscribe();
  }

  /** After `stopped`: ends running turns (once the engine is loaded), flushes the log and closes it. */
  private async shutDown(): Promise<void> {
    this.approvals.unsubscribe();
    // A compaction under way ends (its copy abandoned, or its swap finished) before the log closes under it.
    await this.logCompaction.stop();
    const { context } = this.snapshot;
    if (context.failure !== undefined) this.toolCalls.unsubscribe();
    await (context.engine ? context.engine.close({ reason: STOP_REASON }) : this.core.close());
    this.logHealth.unsubscribe();
    const log = this.core.bus.logHealth();
    if (log.state === 'failing') {
      const message =
        'stopped while the event log could not write: what it held was not written; messages not acknowledged ' +
        'come back from their platforms at the next start';
      this.options.logs.gateway.error(message, { waiting: log.waiting, reason: log.reason });
    }
  }

  /** A fresh instance of the entry `name`, as the config now has it, its errors redacted. */
  private async buildChannel(name: string): Promise<Channel> {
    const { config } = this.loaded;
    const entry = config.channel_list[name];
    if (!entry) throw new Error(`channel ${name} is no longer in the config`);
    const kind = entry.type ?? name;
    const builtIn = (n: string, e: ChannelEntry) => createChannel(n, e, pollMultiplier(config.power));
    const hosted = this.options.hostChannels?.[kind];
    const fromPlugin = pluginKind(name, entry, this.options, config);
    const plugin = fromPlugin ? (n: string, e: ChannelEntry) => this.pluginChannel(n, e, builtIn) : undefined;
    const build = hosted ?? this.options.createChannel ?? plugin ?? builtIn;
    return new RedactingChannel(await build(name, entry), () => redactorOf(this.loaded.config));
  }

  /** A channel of a kind a plugin added; a kind no plugin added fails as unsupported, as before. */
  private async pluginChannel(
    name: string,
    entry: ChannelEntry,
    builtIn: (name: string, entry: ChannelEntry) => Promise<Channel>,
  ): Promise<Channel> {
    const engine = await this.engine();
    await engine.plugins.load();
    const spec = engine.plugins.channelKind(entry.type ?? name);
    if (!spec) return builtIn(name, entry);
    const settings = Object.fromEntries(
      Object.entries(entry.settings).map(([key, value]) => [key, isSecret(value) ? value.reveal() : value]),
    );
    return spec.create(settings, name);
  }

  /** Channels of plugin kinds start once the plugins have loaded. */
  private startPluginChannels(engine: Runtime): void {
    void engine.plugins.load().then(() => {
      const { options } = this;
      const start = enabledChannels(this.loaded)
        .filter(([name, entry]) => pluginKind(name, entry, options, this.loaded.config) && !this.runsChannel(name))
        .map(([name, entry]) => specOf(name, entry));
      if (start.length > 0) this.machine.send({ type: 'ADD_CHANNELS', start });
    });
  }

  /**
   * Starts or stops the heartbeat and cron while the gateway runs: a cluster member runs them only while it holds the
   * cluster's schedule lease (#27), so they run once per cluster. A run in flight when they stop finishes and is
   * recorded; cron started again runs a job it missed meanwhile once.
   */
  setScheduled(on: boolean, reason: string): void {
    this.machine.send({ type: 'SCHEDULE', on, reason });
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

  /** Hot reload as an event: channels whose entry changed restart, the rest keep running. */
  private reloadOf(next: LoadedConfig): GatewayEvent {
    const before = this.loaded.config;
    const changed = changedPaths(before, next.config);
    this.core.loaded.config = next.config;
    const touched = new Set(changed.filter((p) => p.startsWith('channel_list')).map((p) => p.split('.')[1] ?? ''));
    const running = channelsOf(this.snapshot).map((c) => c.name);
    const restart = [...(touched.has('') ? new Set([...running, ...Object.keys(next.config.channel_list)]) : touched)];
    const start = restart.flatMap((name) => {
      const entry = next.config.channel_list[name];
      return entry?.enabled ? [specOf(name, entry)] : [];
    });
    return { type: 'RELOAD', loaded: next, changed, restart, start };
  }

  /** At a reload: models, MCP servers, the heartbeat and media cleanup follow the new config. */
  private followReload(next: LoadedConfig, changed: readonly string[]): void {
    const engine = this.snapshot.context.engine;
    // An engine not loaded yet is built from the new config.
    if (engine && changed.some((p) => p.startsWith('model_list'))) this.reloadModels(engine, next);
    // MCP servers follow at once, not at the next turn: a removed server's process does not outlive the edit.
    if (engine && changed.some((p) => p.startsWith('tools.mcp'))) void engine.followMcp().catch(() => undefined);
    const scheduled = this.snapshot.matches({ running: { schedule: 'on' } });
    if (scheduled && changed.some((p) => p.startsWith('heartbeat') || p.startsWith('power'))) this.heartbeat.start();
    if (changed.some((p) => p.startsWith('tools.media_cleanup') || p.startsWith('power'))) this.mediaCleanup.start();
  }

  /** The next model call uses the new `model_list` (`agents.defaults.model` is read per turn anyway). */
  private reloadModels(engine: Runtime, next: LoadedConfig): void {
    try {
      engine.router.reload(next.config);
    } catch (error) {
      this.options.logs.gateway.error('model_list not reloaded; the previous models stay', {
        reason: (error as Error).message,
      });
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
    const running = channelsOf(this.snapshot);
    const actor =
      running.find((c) => c.name === target.channel) ?? running.find((c) => c.snapshot.context.kind === target.channel);
    if (!actor && !this.options.relay) {
      const names = running.map((c) => c.name).join(', ') || 'none';
      throw new Error(`no channel "${target.channel}" is running (running: ${names})`);
    }
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    // A chat is `direct:<id>`, `group:<id>` or `channel:<id>`: the channel knows its address, else it is the id.
    const channel = actor ? this.directory.get(actor.name) : undefined;
    const replyTo = channel?.replyToOf?.(target.chat) ?? target.chat.replace(/^(direct|group|channel):/, '');
    const files = media.map((m) => ({ kind: m.kind, path: m.path, ...(m.mime ? { mime: m.mime } : {}) }));
    const reply = { channel: actor?.name ?? target.channel, chat: target.chat, reply_to: replyTo };
    const outcome = await this.deliver({
      message_id: `tool_${id}`,
      key: `tool:${id}:message`,
      text,
      reply,
      outcome: 'message',
      ...(files.length > 0 ? { files } : {}),
    });
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
    if (this.runsChannel(channel)) {
      return (await this.deliveries.send(delivery))
        ? { kind: 'sent' }
        : { kind: 'not_delivered', reason: `not every part went out on ${channel}` };
    }
    if (!this.options.relay) return { kind: 'not_delivered', reason: `no channel "${channel}" runs here` };
    return { kind: 'relayed', to: await this.options.relay(delivery) };
  }

  /**
   * The heartbeat's own chat (channel `system`) is nobody's: its turn's `message` calls, and those of the subagents
   * it spawns, reach the user in the last active chat, as its answer does.
   */
  /** The chat a channel entry's `reasoning_channel_id` names, on that channel; none when it names none. */
  private reasoningTarget(name: string): ReplyTarget | undefined {
    const id = this.loaded.config.channel_list[name]?.settings.reasoning_channel_id?.trim();
    if (!id) return undefined;
    const replyTo = this.directory.get(name)?.replyToOf?.(id) ?? id.replace(/^(direct|group|channel):/, '');
    return { channel: name, chat: id, reply_to: replyTo };
  }

  private chatOf(target: SendTarget): SendTarget {
    if (target.channel !== 'system') return target;
    const last = readLastChannel(this.loaded.workspace);
    if (!last) throw new Error('no chat has been active yet, so there is no one to send to');
    return { channel: last.channel, chat: last.chat };
  }
}

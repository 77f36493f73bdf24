import { join } from 'node:path';
import { BehaviorSubject, EMPTY, filter, Observable, switchMap } from 'rxjs';
import type { ClusterNode } from '../../../actors/cluster/cluster-node.js';
import { clusterSettings } from '../../../actors/cluster/settings.js';
import { rerunTurn } from '../../../actors/replay.js';
import { turnRecordTypes } from '../../../machines/turn.js';
import { Gateway } from '../../../actors/gateway/gateway.js';
import type { RuntimeCore } from '../../../actors/runtime-core.js';
import type { Envelope, EventDraft, EventType } from '../../../bus/index.js';
import { loadConfig } from '../../../store/config/index.js';
import { openGatewayLogs, type GatewayLogs } from '../../../store/logs/logger.js';
import { EventLog } from '../../../store/log/event-log.js';
import type { EventStore } from '../../../store/log/event-store.js';
import type { ClusterLogView } from '../../../store/log/cluster-view.js';
import { agentHome, configPath, logDir } from '../../../store/paths.js';
import { BOARD_TYPES } from '../../launcher/api/actor-board.js';
import type { DashboardHost, GatewayAction, GatewayStatus, Rerun } from '../../launcher/api/host.js';
import { PicoEndpoint } from '../../launcher/pico-endpoint.js';
import { machineCharts } from './charts.js';
import { cronRows } from './cron-rows.js';
import { inventoryOf } from './inventory.js';
import { searchMemory } from './memory-search.js';
import { skillsHost } from './skills-host.js';
import { askModel } from './model-test.js';
import { webChatChannels, withWebChat } from './web-chat.js';
import { LOG_CORRUPTED_FIX, LogError, logCorruption } from '../../../store/log/errors.js';
import { findGateway } from '../gateway-link.js';
import { commands } from '../commands/index.js';
import { serveCliControl } from '../serve-control.js';

export type GatewayHost = DashboardHost & {
  start(): Promise<GatewayStatus>;
  stop(): Promise<GatewayStatus>;
  /** Why the last start failed (an invalid config, say); cleared by a good start. */
  lastError(): string | undefined;
  close(): Promise<void>;
};

const RECORDED: ReadonlySet<string> = new Set(turnRecordTypes);

/** The replay actor's answer, with the log position of the recorded event where the new run diverges. */
async function rerunWithSeq(events: Envelope[]): Promise<Rerun> {
  const result = await rerunTurn(events);
  if (result.identical) return result;
  const seq = events.filter((event) => RECORDED.has(event.type))[result.index]?.seq;
  return seq === undefined ? result : { ...result, seq };
}

/** The cluster log's events the machines board folds: those already in it, then each as it arrives. */
function boardFeed(clusterLog: ClusterLogView): Observable<Envelope> {
  return new Observable<Envelope>((subscriber) => {
    // Read and subscribed in one go: the log adds an event and emits it in one step, so none is missed or seen twice.
    const through = clusterLog.lastCommittedSeq();
    for (const event of clusterLog.iterate({ type: BOARD_TYPES, before: through + 1 })) subscriber.next(event);
    return clusterLog.events$.pipe(filter((event) => event.seq > through)).subscribe(subscriber);
  });
}

/**
 * Why the gateway did not start, as the dashboard shows it. When another process writes the log, the gateway it runs
 * is found the way the CLI finds it, on its control socket, and named.
 */
export async function startFailure(error: unknown, env: NodeJS.ProcessEnv): Promise<string> {
  const message = (error as Error).message;
  // The dashboard shows this line where the terminal would have said what to do about a damaged log.
  if (logCorruption(error)) return `the event log is damaged (${message}). ${LOG_CORRUPTED_FIX}`;
  if (!(error instanceof LogError && error.code === 'log_locked')) return message;
  const running = await findGateway(env).catch(() => undefined);
  if (!running) return message;
  const { pid } = running.welcome;
  running.close();
  const who = `a gateway already runs on this AGENT_HOME (process ${pid}, tern gateway)`;
  return `${who}: stop it to run the gateway from the dashboard`;
}

const REQUESTS: Partial<Record<string, GatewayAction>> = {
  'gateway.start.requested': 'start',
  'gateway.stop.requested': 'stop',
  'gateway.restart.requested': 'restart',
};

/**
 * The gateway run inside `tern-launcher`: the same `Gateway` as `tern gateway` (channels, dispatcher,
 * heartbeat, hot reload, health server), with the web-UI chat as one of its channels; started, stopped and
 * restarted on `gateway.*.requested`. Its bus events flow to the dashboard across restarts. With `cluster.url` in the
 * config it runs as a member of that cluster, as `tern gateway --cluster` does (the web chat stays its own channel),
 * and the dashboard reads the cluster log: every gateway's events, actors and turns.
 */
export function gatewayHost(env: NodeJS.ProcessEnv, now: () => number = Date.now): GatewayHost {
  const runtime$ = new BehaviorSubject<RuntimeCore | undefined>(undefined);
  const chatEndpoint = new PicoEndpoint();
  let gateway: Gateway | undefined;
  let node: ClusterNode | undefined;
  let control: { close(): Promise<void> } | undefined;
  /** What the dashboard shows: this gateway alone, or the cluster's log (nothing while the member joins or is stopped). */
  const feed$ = new BehaviorSubject<ClusterLogView | 'alone' | 'joining'>('alone');
  const clusterLog = (): ClusterLogView | undefined => (typeof feed$.value === 'string' ? undefined : feed$.value);
  const status$ = new BehaviorSubject<GatewayStatus>({ state: 'stopped', since: now() });
  const moveTo = (next: GatewayStatus): GatewayStatus => {
    status$.next(next);
    return next;
  };
  let failure: string | undefined;
  let pending: Promise<GatewayStatus> = Promise.resolve(status$.value);
  let logs: GatewayLogs | undefined;
  // While the gateway is stopped the dashboard still reads the log it left, opened read-only.
  let workspace: string | undefined;
  let stoppedLog: EventLog | undefined;
  const readStoppedLog = (): EventLog | undefined => {
    if (stoppedLog || !workspace) return stoppedLog;
    try {
      stoppedLog = EventLog.open(logDir(workspace), { readOnly: true });
    } catch {
      stoppedLog = undefined;
    }
    return stoppedLog;
  };

  const start = async (): Promise<GatewayStatus> => {
    if (gateway) return status$.value;
    moveTo({ state: 'starting', since: now() });
    try {
      const loaded = withWebChat(loadConfig({ env }));
      stoppedLog?.close();
      stoppedLog = undefined;
      workspace = loaded.workspace;
      logs = openGatewayLogs(loaded);
      const options = {
        loaded,
        env,
        logs,
        health: 'optional' as const,
        adjustConfig: withWebChat,
        hostChannels: webChatChannels(chatEndpoint),
        onRuntime: (runtime: RuntimeCore) => runtime$.next(runtime),
      };
      const cluster = clusterSettings(loaded);
      if (cluster) {
        feed$.next('joining');
        // The NATS client loads only for a cluster member, not at every gateway start.
        const { ClusterNode } = await import('../../../actors/cluster/cluster-node.js');
        node = await ClusterNode.start(options, cluster);
        gateway = node.gateway;
        feed$.next(await node.openClusterLog());
      } else {
        feed$.next('alone');
        gateway = await Gateway.start(options);
      }
      const log = logs.gateway;
      control = await serveCliControl(gateway, (message, fields) => log.warn(message, fields), commands);
      failure = undefined;
      return moveTo({ state: 'running', since: now() });
    } catch (error) {
      runtime$.next(undefined);
      gateway = undefined;
      await node?.stop('failed').catch(() => undefined);
      node = undefined;
      failure = await startFailure(error, env);
      logs?.gateway.error('gateway failed to start', { reason: failure });
      logs?.close();
      logs = undefined;
      return moveTo({ state: 'stopped', since: now(), failure });
    }
  };
  const stop = async (): Promise<GatewayStatus> => {
    const running = gateway;
    const member = node;
    if (!running) return status$.value;
    gateway = undefined;
    node = undefined;
    moveTo({ state: 'stopping', since: now() });
    try {
      clusterLog()?.close();
      if (member) feed$.next('joining');
      // Subscribers see `gateway.stopping` and the drained turns' last events before the bus goes.
      await (member ? member.stop('dashboard') : running.stop('dashboard'));
      await control?.close();
    } finally {
      control = undefined;
      runtime$.next(undefined);
      logs?.close();
      logs = undefined;
    }
    return moveTo({ state: 'stopped', since: now() });
  };
  const perform = (action: GatewayAction): Promise<GatewayStatus> =>
    action === 'start' ? start() : action === 'stop' ? stop() : stop().then(start);
  // One request at a time, in order: a restart never overlaps a stop.
  const serialized = (action: GatewayAction): Promise<GatewayStatus> =>
    (pending = pending.then(
      () => perform(action),
      () => perform(action),
    ));

  const events$ = runtime$.pipe(switchMap((runtime) => runtime?.bus.events$ ?? EMPTY));
  // The supervisor: whoever publishes `gateway.<action>.requested` on the bus gets it done, in order.
  let answered: Promise<GatewayStatus> | undefined;
  const requests = events$.subscribe((event) => {
    const action = REQUESTS[event.type];
    if (action) answered = serialized(action);
  });

  const publish = <T extends EventType>(draft: EventDraft<T>): boolean => Boolean(runtime$.value?.bus.publish(draft));
  const readLog = (): EventStore | undefined => clusterLog() ?? runtime$.value?.log ?? readStoppedLog();
  const shown$ = feed$.pipe(
    switchMap((feed) => (feed === 'alone' ? events$ : feed === 'joining' ? EMPTY : feed.events$)),
  );
  const board$ = feed$.pipe(
    switchMap((feed) => (feed === 'alone' ? events$ : feed === 'joining' ? EMPTY : boardFeed(feed))),
  );
  return {
    configPath: () => configPath(env),
    logFile: () => join(agentHome(env), 'logs', 'gateway.log'),
    log: readLog,
    events$,
    shown$,
    board$,
    publish,
    skills: skillsHost({ env, log: readLog, engine: () => gateway?.engine(), events$, publish, now }),
    rerun: rerunWithSeq,
    clearSession: async (started) => {
      if (!gateway) return false;
      const engine = await gateway.engine();
      const { channel, chat, session_key: key } = started.data;
      const messageId = `dashboard_clear_${now().toString(36)}`;
      await engine.ask({
        agent: started.agent ?? engine.defaultAgent(),
        session_key: key,
        channel,
        chat,
        sender: 'dashboard',
        message_id: messageId,
        text: '/clear',
        remote: false,
      });
      return true;
    },
    chatEndpoint,
    gatewayStatus: () => status$.value,
    status$,
    requestGateway: (action, by) => {
      answered = undefined;
      runtime$.value?.bus.publish({ type: `gateway.${action}.requested`, data: { by } });
      // With the gateway stopped there is no bus to ask on: the launcher starts it itself.
      return answered ?? serialized(action);
    },
    charts: machineCharts,
    testModel: async (modelName) => {
      const restarted = await serialized('restart');
      if (restarted.state !== 'running' || !gateway)
        return { ok: false, code: 'gateway_stopped', message: failure ?? 'the gateway did not start' };
      return askModel((await gateway.engine()).router, modelName);
    },
    inventory: async (kind) => {
      // Cron jobs live in the workspace database, listed whether the gateway runs or not.
      if (kind === 'cron') return workspace ? cronRows(workspace, logs?.gateway) : [];
      return gateway ? inventoryOf(await gateway.engine(), kind) : [];
    },
    cronWorkspace: () => {
      try {
        return loadConfig({ env, rewrite: false }).workspace;
      } catch {
        return undefined;
      }
    },
    searchMemory: async (query, limit, agent) =>
      gateway ? searchMemory(await gateway.engine(), query, limit, agent) : undefined,
    start: () => serialized('start'),
    stop: () => serialized('stop'),
    lastError: () => failure,
    close: async () => {
      requests.unsubscribe();
      await serialized('stop');
      stoppedLog?.close();
      chatEndpoint.close();
      runtime$.complete();
      feed$.complete();
      status$.complete();
    },
  };
}

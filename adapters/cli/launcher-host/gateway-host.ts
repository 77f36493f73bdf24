import { join } from 'node:path';
import {
  BehaviorSubject,
  defer,
  distinctUntilChanged,
  EMPTY,
  filter,
  from,
  map,
  Observable,
  startWith,
  switchMap,
} from 'rxjs';
import { assign, createActor, fromPromise, waitFor, type SnapshotFrom } from 'xstate';
import type { Gateway } from '../../../actors/gateway/gateway.js';
import { rerunTurn } from '../../../actors/replay.js';
import type { RuntimeCore } from '../../../actors/runtime-core.js';
import type { Envelope, EventDraft, EventType } from '../../../bus/index.js';
import { gatewayHostMachine, type GatewayHostEvent } from '../../../machines/gateway-host.js';
import { turnRecordTypes } from '../../../machines/turn.js';
import { loadConfig } from '../../../store/config/index.js';
import type { ClusterLogView } from '../../../store/log/cluster-view.js';
import type { EventStore } from '../../../store/log/event-store.js';
import { agentHome, configPath } from '../../../store/paths.js';
import { BOARD_TYPES } from '../../launcher/api/actor-board.js';
import type { DashboardHost, GatewayAction, GatewayStatus, Rerun } from '../../launcher/api/host.js';
import { PicoEndpoint } from '../../channels/pico/endpoint.js';
import { machineCharts } from './charts.js';
import { cronRows } from './cron-rows.js';
import { startRun, stopRun, type Feed, type GatewayRun } from './gateway-run.js';
import { inventoryOf } from './inventory.js';
import { searchMemory } from './memory-search.js';
import { askModel } from './model-test.js';
import { skillsHost } from './skills-host.js';
import { StoppedLog } from './stopped-log.js';

export { startFailure } from './gateway-run.js';

declare module '../../../machines/gateway-host.js' {
  interface GatewayHostRegister {
    running: GatewayRun;
  }
}

type HostSnapshot = SnapshotFrom<typeof gatewayHostMachine>;

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

const REQUESTS: Partial<Record<string, GatewayAction>> = {
  'gateway.start.requested': 'start',
  'gateway.stop.requested': 'stop',
  'gateway.restart.requested': 'restart',
};
const EVENTS: Record<GatewayAction, GatewayHostEvent['type']> = { start: 'START', stop: 'STOP', restart: 'RESTART' };

/** The host machine's state as the dashboard's gateway status. */
function statusOf(snapshot: HostSnapshot): GatewayStatus {
  const { since, failure } = snapshot.context;
  if (snapshot.matches('running')) return { state: 'running', since };
  if (snapshot.matches('starting')) return { state: 'starting', since };
  if (snapshot.matches('stopping') || snapshot.matches({ restarting: 'stopping' })) return { state: 'stopping', since };
  return { state: 'stopped', since, ...(failure && snapshot.matches('stopped') ? { failure } : {}) };
}

/** At rest, with every request that came meanwhile answered. */
const answeredIn = (snapshot: HostSnapshot): boolean =>
  (snapshot.matches('running') || snapshot.matches('stopped')) && snapshot.context.queue.length === 0;

/**
 * The gateway run inside `tern-launcher`, hosted by `gatewayHostMachine`: the machine is its state (stopped, starting,
 * running, stopping, restarting) and holds the running gateway; the status stream is its snapshots. Started, stopped
 * and restarted on `gateway.*.requested`; its bus events flow to the dashboard across restarts. With `cluster.url` in
 * the config it runs as a member of that cluster, as `tern gateway --cluster` does (the web chat stays its own
 * channel), and the dashboard reads the cluster log: every gateway's events, actors and turns.
 */
export function gatewayHost(env: NodeJS.ProcessEnv, now: () => number = Date.now): GatewayHost {
  const runtime$ = new BehaviorSubject<RuntimeCore | undefined>(undefined);
  const chatEndpoint = new PicoEndpoint();
  const feed$ = new BehaviorSubject<Feed>('alone');
  const stoppedLog = new StoppedLog();
  const deps = { env, chatEndpoint, runtime$, feed$, stoppedLog };
  const actor = createActor(
    gatewayHostMachine.provide({
      actors: {
        start: fromPromise<GatewayRun>(() => startRun(deps)),
        stop: fromPromise<void, GatewayRun>(({ input }) => stopRun(input, deps)),
      },
      actions: { stamp: assign({ since: () => now() }) },
    }),
  ).start();
  const clusterLog = (): ClusterLogView | undefined => (typeof feed$.value === 'string' ? undefined : feed$.value);
  const gateway = (): Gateway | undefined => {
    const snapshot = actor.getSnapshot();
    return snapshot.matches('running') ? snapshot.context.running?.gateway : undefined;
  };
  const failure = (): string | undefined => actor.getSnapshot().context.failure;
  /** Resolves once the gateway is at rest again, every request so far answered. */
  const answered = async (): Promise<GatewayStatus> =>
    statusOf(await waitFor(actor, answeredIn, { timeout: Infinity }));
  const ask = (action: GatewayAction): Promise<GatewayStatus> => {
    actor.send({ type: EVENTS[action] });
    return answered();
  };

  const events$ = runtime$.pipe(switchMap((runtime) => runtime?.bus.events$ ?? EMPTY));
  // The supervisor: whoever publishes `gateway.<action>.requested` on the bus gets it done, in order.
  const requests = events$.subscribe((event) => {
    const action = REQUESTS[event.type];
    if (action) actor.send({ type: EVENTS[action] });
  });
  const status$ = defer(() => from(actor).pipe(startWith(actor.getSnapshot()))).pipe(
    map(statusOf),
    distinctUntilChanged((a, b) => a.state === b.state && a.since === b.since),
  );

  const publish = <T extends EventType>(draft: EventDraft<T>): boolean => Boolean(runtime$.value?.bus.publish(draft));
  const readLog = (): EventStore | undefined => clusterLog() ?? runtime$.value?.log ?? stoppedLog.read();
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
    skills: skillsHost({ env, log: readLog, engine: () => gateway()?.engine(), events$, publish, now }),
    rerun: rerunWithSeq,
    clearSession: async (started) => {
      const running = gateway();
      if (!running) return false;
      const engine = await running.engine();
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
    gatewayStatus: () => statusOf(actor.getSnapshot()),
    status$,
    requestGateway: (action, by) => {
      // The request goes on the bus, where the subscription above hands it to the machine; with the gateway stopped
      // there is no bus to ask on, and the launcher asks the machine itself.
      const published = runtime$.value?.bus.publish({ type: `gateway.${action}.requested`, data: { by } });
      return published ? answered() : ask(action);
    },
    charts: machineCharts,
    testModel: async (modelName) => {
      const restarted = await ask('restart');
      const running = gateway();
      if (restarted.state !== 'running' || !running)
        return { ok: false, code: 'gateway_stopped', message: failure() ?? 'the gateway did not start' };
      return askModel((await running.engine()).router, modelName);
    },
    inventory: async (kind) => {
      // Cron jobs live in the workspace database, listed whether the gateway runs or not.
      if (kind === 'cron') {
        const workspace = stoppedLog.lastWorkspace;
        return workspace ? cronRows(workspace, actor.getSnapshot().context.running?.logs.gateway) : [];
      }
      const running = gateway();
      return running ? inventoryOf(await running.engine(), kind) : [];
    },
    cronWorkspace: () => {
      try {
        return loadConfig({ env, rewrite: false }).workspace;
      } catch {
        return undefined;
      }
    },
    searchMemory: async (query, limit, agent) => {
      const running = gateway();
      return running ? searchMemory(await running.engine(), query, limit, agent) : undefined;
    },
    start: () => ask('start'),
    stop: () => ask('stop'),
    lastError: failure,
    close: async () => {
      requests.unsubscribe();
      await ask('stop');
      actor.stop();
      stoppedLog.close();
      chatEndpoint.close();
      runtime$.complete();
      feed$.complete();
    },
  };
}

import { join } from 'node:path';
import { BehaviorSubject, EMPTY, switchMap } from 'rxjs';
import { rerunTurn } from '../../../actors/replay.js';
import { Runtime } from '../../../actors/runtime.js';
import type { EventDraft, EventType } from '../../../bus/index.js';
import { loadConfig } from '../../../store/config/index.js';
import { openGatewayLogs, type GatewayLogs } from '../../../store/logs/logger.js';
import { EventLog } from '../../../store/log/event-log.js';
import { agentHome, configPath, logDir } from '../../../store/paths.js';
import type { DashboardHost, GatewayAction, GatewayStatus } from '../../launcher/api/host.js';
import { machineCharts } from './charts.js';
import { inventoryOf } from './inventory.js';
import { askModel } from './model-test.js';
import { WEB_UI_CHANNEL, webChat } from './web-chat.js';

export type GatewayHost = DashboardHost & {
  start(): Promise<GatewayStatus>;
  stop(): Promise<GatewayStatus>;
  /** Why the last start failed (an invalid config, say); cleared by a good start. */
  lastError(): string | undefined;
  close(): Promise<void>;
};

const REQUESTS: Partial<Record<string, GatewayAction>> = {
  'gateway.start.requested': 'start',
  'gateway.stop.requested': 'stop',
  'gateway.restart.requested': 'restart',
};

/**
 * The gateway run inside `tern-launcher`: one Runtime with the web-UI channel, started, stopped and
 * restarted on `gateway.*.requested`. Its bus events flow to the dashboard across restarts.
 */
export function gatewayHost(env: NodeJS.ProcessEnv, now: () => number = Date.now): GatewayHost {
  const runtime$ = new BehaviorSubject<Runtime | undefined>(undefined);
  let status: GatewayStatus = { state: 'stopped', since: now() };
  let failure: string | undefined;
  let pending: Promise<GatewayStatus> = Promise.resolve(status);
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
    if (runtime$.value) return status;
    try {
      const loaded = loadConfig({ env });
      stoppedLog?.close();
      stoppedLog = undefined;
      workspace = loaded.workspace;
      logs = openGatewayLogs(loaded);
      const logger = logs.gateway;
      const runtime = Runtime.start({ loaded, env, command: 'tern-launcher', logError: (line) => logger.error(line) });
      logger.info('gateway started', { channels: WEB_UI_CHANNEL, pid: process.pid });
      runtime$.next(runtime);
      runtime.bus.publish({ type: 'gateway.started', data: { pid: process.pid, channels: [WEB_UI_CHANNEL] } });
      failure = undefined;
      status = { state: 'running', since: now() };
    } catch (error) {
      failure = (error as Error).message;
      status = { state: 'stopped', since: now(), failure };
      logs?.gateway.error('gateway failed to start', { reason: failure });
      logs?.close();
      logs = undefined;
    }
    return status;
  };
  const stop = async (): Promise<GatewayStatus> => {
    const runtime = runtime$.value;
    if (!runtime) return status;
    runtime.bus.publish({ type: 'gateway.stopping', data: { signal: 'dashboard' } });
    runtime$.next(undefined);
    await runtime.close();
    logs?.gateway.info('gateway stopped');
    logs?.close();
    logs = undefined;
    status = { state: 'stopped', since: now() };
    return status;
  };
  const perform = (action: GatewayAction): Promise<GatewayStatus> =>
    action === 'start' ? start() : action === 'stop' ? stop() : stop().then(start);
  // One request at a time, in order: a restart never overlaps a stop.
  const serialized = (action: GatewayAction): Promise<GatewayStatus> => (pending = pending.then(() => perform(action), () => perform(action)));

  const events$ = runtime$.pipe(switchMap((runtime) => runtime?.bus.events$ ?? EMPTY));
  // The supervisor: whoever publishes `gateway.<action>.requested` on the bus gets it done, in order.
  let answered: Promise<GatewayStatus> | undefined;
  const requests = events$.subscribe((event) => {
    const action = REQUESTS[event.type];
    if (action) answered = serialized(action);
  });

  return {
    configPath: () => configPath(env),
    logFile: () => join(agentHome(env), 'logs', 'gateway.log'),
    log: () => runtime$.value?.log ?? readStoppedLog(),
    events$,
    publish: <T extends EventType>(draft: EventDraft<T>) => Boolean(runtime$.value?.bus.publish(draft)),
    rerun: (events) => rerunTurn(events),
    clearSession: async (started) => {
      const runtime = runtime$.value;
      if (!runtime) return false;
      const { channel, chat, session_key: key } = started.data;
      const messageId = `dashboard_clear_${now().toString(36)}`;
      await runtime.agent(started.agent).handle(key, { channel, account: 'default', chat, sender: 'dashboard', messageId, text: '/clear', remote: false });
      return true;
    },
    chat: async (chat, text, sink) => {
      const runtime = runtime$.value;
      if (!runtime) return { kind: 'failed', code: 'gateway_stopped', message: 'the gateway is stopped; start it on the Gateway page' };
      return webChat(runtime, chat, text, sink);
    },
    gatewayStatus: () => status,
    requestGateway: (action, by) => {
      answered = undefined;
      runtime$.value?.bus.publish({ type: `gateway.${action}.requested`, data: { by } });
      // With the gateway stopped there is no bus to ask on: the launcher starts it itself.
      return answered ?? serialized(action);
    },
    charts: machineCharts,
    testModel: async (modelName) => {
      const restarted = await serialized('restart');
      const runtime = runtime$.value;
      if (restarted.state !== 'running' || !runtime) return { ok: false, code: 'gateway_stopped', message: failure ?? 'the gateway did not start' };
      return askModel(runtime, modelName);
    },
    inventory: (kind) => {
      const runtime = runtime$.value;
      return runtime ? inventoryOf(runtime, env, kind) : [];
    },
    start: () => serialized('start'),
    stop: () => serialized('stop'),
    lastError: () => failure,
    close: async () => {
      requests.unsubscribe();
      await serialized('stop');
      stoppedLog?.close();
      runtime$.complete();
    },
  };
}

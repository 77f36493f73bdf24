import type { BehaviorSubject } from 'rxjs';
import type { ClusterNode } from '../../../actors/cluster/cluster-node.js';
import { clusterSettings } from '../../../actors/cluster/settings.js';
import { Gateway } from '../../../actors/gateway/gateway.js';
import type { RuntimeCore } from '../../../actors/runtime-core.js';
import { loadConfig } from '../../../store/config/index.js';
import type { ClusterLogView } from '../../../store/log/cluster-view.js';
import { LOG_CORRUPTED_FIX, LogError, logCorruption } from '../../../store/log/errors.js';
import { openGatewayLogs, type GatewayLogs } from '../../../store/logs/logger.js';
import type { PicoEndpoint } from '../../channels/pico/endpoint.js';
import { commands } from '../commands/index.js';
import { findGateway } from '../gateway-link.js';
import { serveCliControl } from '../serve-control.js';
import type { StoppedLog } from './stopped-log.js';
import { webChatChannels, withWebChat } from './web-chat.js';

/** A gateway the launcher runs: alone or as a cluster member, with the control socket the CLI finds it on. */
export interface GatewayRun {
  gateway: Gateway;
  node?: ClusterNode;
  control?: { close(): Promise<void> };
  logs: GatewayLogs;
}

/**
 * What the dashboard shows: this gateway alone, or the cluster's log (nothing while the member joins or is stopped).
 */
export type Feed = ClusterLogView | 'alone' | 'joining';

/** The streams the runs feed, and the log the dashboard reads while none runs. */
export interface RunDeps {
  env: NodeJS.ProcessEnv;
  chatEndpoint: PicoEndpoint;
  runtime$: BehaviorSubject<RuntimeCore | undefined>;
  feed$: BehaviorSubject<Feed>;
  stoppedLog: StoppedLog;
}

/** A start that failed; the message is what the dashboard shows. */
export class GatewayStartError extends Error {
  readonly code = 'gateway_start_failed';
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

/**
 * Starts the same `Gateway` as `tern gateway` (channels, dispatcher, heartbeat, hot reload, health server), with the
 * web-UI chat as one of its channels; with `cluster.url` in the config, as a member of that cluster. A start that
 * fails leaves nothing running and throws a `GatewayStartError` saying why.
 */
export async function startRun(deps: RunDeps): Promise<GatewayRun> {
  const { env, runtime$, feed$ } = deps;
  let logs: GatewayLogs | undefined;
  let started: Gateway | ClusterNode | undefined;
  try {
    const loaded = withWebChat(loadConfig({ env }));
    deps.stoppedLog.readFrom(loaded.workspace);
    logs = openGatewayLogs(loaded);
    const options = {
      loaded,
      env,
      logs,
      health: 'optional' as const,
      adjustConfig: withWebChat,
      hostChannels: webChatChannels(deps.chatEndpoint),
      onRuntime: (runtime: RuntimeCore) => runtime$.next(runtime),
    };
    const cluster = clusterSettings(loaded);
    let run: GatewayRun;
    if (cluster) {
      feed$.next('joining');
      // The NATS client loads only for a cluster member, not at every gateway start.
      const { ClusterNode } = await import('../../../actors/cluster/cluster-node.js');
      const node = await ClusterNode.start(options, cluster);
      started = node;
      feed$.next(await node.openClusterLog());
      run = { gateway: node.gateway, node, logs };
    } else {
      feed$.next('alone');
      const gateway = await Gateway.start(options);
      started = gateway;
      run = { gateway, logs };
    }
    const log = logs.gateway;
    const control = await serveCliControl(run.gateway, (message, fields) => log.warn(message, fields), commands);
    return { ...run, ...(control ? { control } : {}) };
  } catch (error) {
    runtime$.next(undefined);
    await started?.stop('failed').catch(() => undefined);
    const failure = await startFailure(error, env);
    logs?.gateway.error('gateway failed to start', { reason: failure });
    logs?.close();
    throw new GatewayStartError(failure);
  }
}

/**
 * Drains and stops the run; subscribers see `gateway.stopping` and the drained turns' last events before the bus goes.
 */
export async function stopRun(run: GatewayRun, deps: RunDeps): Promise<void> {
  const { feed$ } = deps;
  try {
    if (typeof feed$.value !== 'string') feed$.value.close();
    if (run.node) feed$.next('joining');
    await (run.node ? run.node.stop('dashboard') : run.gateway.stop('dashboard'));
    await run.control?.close();
  } finally {
    deps.runtime$.next(undefined);
    run.logs.close();
  }
}

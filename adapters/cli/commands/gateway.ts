import { once } from 'node:events';
import type { ClusterNode } from '../../../actors/cluster/cluster-node.js';
import { clusterSettings } from '../../../actors/cluster/settings.js';
import { Gateway } from '../../../actors/gateway/gateway.js';
import { LogError } from '../../../store/log/errors.js';
import { openGatewayLogs, type GatewayLogs } from '../../../store/logs/logger.js';
import { print, type CommandContext } from '../command.js';
import type { LoadedConfig } from '../../../store/config/index.js';
import { CliError } from '../errors.js';
import { loadConfigForCli } from '../load-config.js';
import { preferMemoryOverSpeed } from '../memory-mode.js';
import { serveCliControl } from '../serve-control.js';

function startFailure(error: unknown, host: string, port: number): unknown {
  if (error instanceof LogError && error.code === 'log_locked') {
    return new CliError(
      'log_locked',
      'the event log is in use',
      error.message,
      'Another gateway (or `tern agent`) is running on this workspace; stop it first.',
    );
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    return new CliError(
      'port_unavailable',
      `cannot listen on ${host}:${port}`,
      String(code),
      'Stop what uses that port, or set gateway.port in config.json.',
    );
  }
  return error;
}

/** Uncaught errors go to the panic log; the gateway keeps answering unless the error was synchronous. */
function guard(logs: GatewayLogs): () => void {
  const onRejection = (reason: unknown): void => logs.panic(reason);
  const onException = (error: unknown): void => {
    logs.panic(error);
    process.exit(1);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}

/** What a first start without a model or a channel means, and how to go on; each channel that cannot start. */
function startHints(loaded: LoadedConfig): string[] {
  const { config } = loaded;
  const hints = loaded.channelProblems.map((problem) => `warning: ${problem}`);
  if (!config.model_list.some((m) => m.enabled)) {
    hints.push(
      'note: no model in model_list, so messages get no answer. Run `tern onboard` ' +
        '(or add a model_list entry, see README: Quick start), then `tern doctor`.',
    );
  }
  if (!Object.values(config.channel_list).some((c) => c.enabled)) {
    hints.push(
      'note: no channel in channel_list, so only the heartbeat and cron jobs run here. ' +
        'Add one (`tern onboard --telegram-token …`, or README: Quick start), ' +
        'or chat through the dashboard (tern-launcher).',
    );
  }
  if (!config.gateway.hot_reload)
    hints.push('note: gateway.hot_reload is false: edits of the config apply at restart.');
  return hints;
}

export async function run(context: CommandContext): Promise<number> {
  const loaded = loadConfigForCli(context.env);
  const logs = openGatewayLogs(loaded);
  // Deprecated keys (tools.skills.github) and unknown ones are said where the gateway's user looks.
  for (const warning of loaded.warnings) logs.gateway.warn(warning);
  const unguard = guard(logs);
  const { host, port } = loaded.config.gateway;
  const cluster = clusterSettings(loaded, { url: context.values.cluster, id: context.values.id });
  let gateway: Gateway;
  let node: ClusterNode | undefined;
  try {
    if (cluster) {
      // The NATS client loads only for a cluster member, not at every gateway start.
      const { ClusterNode } = await import('../../../actors/cluster/cluster-node.js');
      node = await ClusterNode.start({ loaded, env: context.env, logs }, cluster);
      gateway = node.gateway;
    } else gateway = await Gateway.start({ loaded, env: context.env, logs });
  } catch (error) {
    unguard();
    logs.close();
    throw startFailure(error, host, port);
  }
  // `tern agent` and the commands that hand their work to a running gateway find it on its socket.
  const control = await serveCliControl(
    gateway,
    (message, fields) => logs.gateway.warn(message, fields),
    context.commands ?? [],
  );
  // The bubblewrap probe runs two programs; after the start, so spawning them never holds up the channels' start.
  void gateway.engineLoaded.then(async () => {
    preferMemoryOverSpeed();
    const { execIsolationState } = await import('../../../actors/wiring/exec-isolation.js');
    const { describeIsolation } = await import('../../tools/exec/isolation.js');
    const state = await execIsolationState(loaded.config);
    const degraded = state?.kind === 'isolated' && state.warnings.length > 0;
    if (state?.kind === 'guard_only' || state?.kind === 'refused' || degraded) {
      print(context.stderr, `tern: warning: ${describeIsolation(state)}`);
    }
  });
  if (node) {
    const { id, url } = node.settings;
    if (context.json) print(context.stdout, JSON.stringify({ ok: true, url: gateway.url, cluster: { id, url } }));
    else
      print(
        context.stdout,
        `gateway: serving ${gateway.url}/health and /ready; cluster member ${id} ` +
          `on ${url}, channel accounts taken as leases allow. Ctrl-C stops it.`,
      );
  } else {
    const channels =
      gateway
        .readiness()
        .channels.map((c) => c.name)
        .join(', ') || 'none';
    if (context.json)
      print(
        context.stdout,
        JSON.stringify({ ok: true, url: gateway.url, channels: gateway.readiness().channels.map((c) => c.name) }),
      );
    else
      print(
        context.stdout,
        `gateway: serving ${gateway.url}/health and /ready; channels: ${channels}. Ctrl-C stops it.`,
      );
  }
  for (const hint of startHints(loaded)) print(context.stderr, `tern: ${hint}`);
  if (!context.signal.aborted) await once(context.signal, 'abort');
  await (node ? node.stop('signal') : gateway.stop('signal'));
  await control?.close();
  unguard();
  logs.close();
  if (!context.json) print(context.stdout, 'gateway: stopped');
  return 0;
}

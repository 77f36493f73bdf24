import { once } from 'node:events';
import { Gateway } from '../../../actors/gateway/gateway.js';
import { execIsolationState } from '../../../actors/wiring/tools.js';
import { describeIsolation } from '../../tools/exec/isolation.js';
import { LogError } from '../../../store/log/errors.js';
import { openGatewayLogs, type GatewayLogs } from '../../../store/logs/logger.js';
import { print, type CommandContext } from '../command.js';
import { CliError } from '../errors.js';
import { loadConfigForCli } from '../load-config.js';
import { preferMemoryOverSpeed } from '../memory-mode.js';

function startFailure(error: unknown, host: string, port: number): unknown {
  if (error instanceof LogError && error.code === 'log_locked') {
    return new CliError('log_locked', 'the event log is in use', error.message, 'Another gateway (or `tern agent`) is running on this workspace; stop it first.');
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE' || code === 'EACCES') {
    return new CliError('port_unavailable', `cannot listen on ${host}:${port}`, String(code), 'Stop what uses that port, or set gateway.port in config.json.');
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

export async function run(context: CommandContext): Promise<number> {
  const loaded = loadConfigForCli(context.env);
  const logs = openGatewayLogs(loaded);
  const unguard = guard(logs);
  const { host, port } = loaded.config.gateway;
  let gateway: Gateway;
  try {
    gateway = await Gateway.start({ loaded, env: context.env, logs });
  } catch (error) {
    unguard();
    logs.close();
    throw startFailure(error, host, port);
  }
  void gateway.engineLoaded.then(preferMemoryOverSpeed);
  void execIsolationState(loaded.config).then((state) => {
    if (state?.kind === 'guard_only' || state?.kind === 'refused') print(context.stderr, `tern: warning: ${describeIsolation(state)}`);
  });
  const channels = gateway.readiness().channels.map((c) => c.name).join(', ') || 'none';
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, url: gateway.url, channels: gateway.readiness().channels.map((c) => c.name) }));
  else print(context.stdout, `gateway: serving ${gateway.url}/health and /ready; channels: ${channels}. Ctrl-C stops it.`);
  if (!context.signal.aborted) await once(context.signal, 'abort');
  await gateway.stop('signal');
  unguard();
  logs.close();
  if (!context.json) print(context.stdout, 'gateway: stopped');
  return 0;
}

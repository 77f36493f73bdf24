#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 node
// The same fixed malloc trim threshold as `tern` (adapters/cli/bin.ts): the launcher runs the gateway in its process.
import { parseArgs } from 'node:util';
import { parseArgsProblem } from './usage-problem.js';
import { openBrowser } from '../launcher/open-browser.js';
import { DEFAULT_HOST, DEFAULT_PORT, type RunningLauncher, startLauncher } from '../launcher/server.js';
import { startupNotes } from '../launcher/startup-notes.js';
import { LauncherConfigError } from '../../store/launcher/launcher-config.js';
import { agentHome } from '../../store/paths.js';
import { CliError, UsageError } from './errors.js';
import { gatewayHost, type GatewayHost } from './launcher-host/gateway-host.js';
import { mountDashboard } from './launcher-host/mount.js';

const HELP = `Usage: tern-launcher [--port ${DEFAULT_PORT}] [--host ${DEFAULT_HOST}] [--no-browser]

Serves the password-protected dashboard. On the first run the browser opens /launcher-setup to create the password.

Options:
  --port N        port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host HOST     address to listen on (default ${DEFAULT_HOST}, this machine only)
  --no-browser    do not open a browser
  -h, --help      show this help`;

type Options = { help: true } | { help: false; host: string; port: number; browser: boolean };

function parseOptions(argv: string[]): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { port: { type: 'string' }, host: { type: 'string' }, 'no-browser': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const problem = parseArgsProblem(error, 'tern-launcher', ['port', 'host', 'no-browser']);
    throw new UsageError(problem, 'Run `tern-launcher --help`.');
  }
  if (values.help) return { help: true };
  const port = Number(values.port ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || values.port?.trim() === '')
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${values.port}"`, 'Run `tern-launcher --help`.');
  const host = values.host?.trim() ?? DEFAULT_HOST;
  if (host === '') throw new UsageError('--host must not be empty', 'Pass an address such as 127.0.0.1.');
  return { help: false, host, port, browser: !values['no-browser'] };
}

function explain(error: unknown, host: string, port: number): CliError {
  if (error instanceof LauncherConfigError) return new CliError(error.code, 'cannot read the launcher config', error.message, 'Fix the JSON or remove the file.');
  const code = (error as { code?: unknown }).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === 'EADDRINUSE') return new CliError('port_in_use', where, 'another program uses that port', 'Stop it, or pass --port with another number.');
  if (code === 'EACCES') return new CliError('port_denied', where, 'this user may not use that port', 'Pass --port 1024 or higher.');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new CliError('host_unavailable', where, 'no network interface has that address', 'Pass --host 127.0.0.1.');
  return new CliError('internal', 'the launcher failed to start', String((error as Error)?.message ?? error), 'Run it again and report it if it repeats.');
}

function stopOnSignal(launcher: RunningLauncher, host: GatewayHost, dashboard: { close(): void }): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      dashboard.close();
      void host.close().then(() => launcher.close()).then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

async function serve(options: Extract<Options, { help: false }>): Promise<number> {
  const launcher = await startLauncher({ home: agentHome(), host: options.host, port: options.port }).catch((error: unknown) => {
    throw explain(error, options.host, options.port);
  });
  for (const note of startupNotes(launcher, process.env)) process.stderr.write(`tern-launcher: ${note}\n`);
  const host = gatewayHost(process.env);
  const dashboard = mountDashboard(launcher, host);
  await host.start();
  const failure = host.lastError();
  if (failure) process.stderr.write(`tern-launcher: the gateway did not start (${failure}). Fix the config on the Config page, then start it on the Gateway page.\n`);
  process.stdout.write(`tern-launcher: dashboard at ${launcher.url}\n`);
  if (options.browser) openBrowser((await launcher.initialized()) ? launcher.url : `${launcher.url}/launcher-setup`);
  await stopOnSignal(launcher, host, dashboard);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  try {
    const options = parseOptions(argv);
    if (!options.help) return await serve(options);
    process.stdout.write(`${HELP}\n`);
    return 0;
  } catch (error) {
    const failure = error instanceof CliError
      ? error
      : new CliError('internal', 'the launcher stopped unexpectedly', String((error as Error)?.message ?? error), 'Run it again and report it if it repeats.');
    process.stderr.write(`tern-launcher: ${failure.message}\n`);
    return failure.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));

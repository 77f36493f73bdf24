#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 node
// The same fixed malloc trim threshold as `tern` (adapters/cli/bin.ts): the launcher runs the gateway in its process.
import { parseArgs } from 'node:util';
import { resetLoginLimits } from '../launcher/login-limit.js';
import { parseArgsProblem } from './usage-problem.js';
import { openBrowser } from '../launcher/open-browser.js';
import { DEFAULT_HOST, DEFAULT_PORT, type RunningLauncher, startLauncher } from '../launcher/server.js';
import { SETUP_TOKEN_VARIABLE, SetupTokenError } from '../launcher/setup-token.js';
import { startupNotes } from '../launcher/startup-notes.js';
import { LauncherConfigError } from '../../store/launcher/launcher-config.js';
import { agentHome } from '../../store/paths.js';
import { CliError, UsageError } from './errors.js';
import { gatewayHost, type GatewayHost } from './launcher-host/gateway-host.js';
import { mountDashboard } from './launcher-host/mount.js';

const HELP = `Usage: tern-launcher [--port ${DEFAULT_PORT}] [--host ${DEFAULT_HOST}] [--no-browser]
       tern-launcher --reset-login-limits

Serves the password-protected dashboard. On the first run it prints a one-time setup link
(/launcher-setup?setup_token=…) and opens it in the browser to create the password.

Options:
  --port N               port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --host HOST            address to listen on (default ${DEFAULT_HOST}, this machine only)
  --no-browser           do not open a browser
  --reset-login-limits   let every client sign in again at once (also in a launcher that runs now), then exit
  -h, --help             show this help

Environment:
  ${SETUP_TOKEN_VARIABLE}   the setup token to use instead of a random one (at least 16 characters)`;

const RESET_DONE = 'login limits reset; every client may sign in again (a running launcher too).';

type Options =
  | { kind: 'help' }
  | { kind: 'reset-login-limits' }
  | { kind: 'serve'; host: string; port: number; browser: boolean };
type ServeOptions = Extract<Options, { kind: 'serve' }>;

function parseOptions(argv: string[]): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'no-browser': { type: 'boolean' },
        'reset-login-limits': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const problem = parseArgsProblem(error, 'tern-launcher', ['port', 'host', 'no-browser', 'reset-login-limits']);
    throw new UsageError(problem, 'Run `tern-launcher --help`.');
  }
  if (values.help) return { kind: 'help' };
  if (values['reset-login-limits']) return { kind: 'reset-login-limits' };
  const port = Number(values.port ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || values.port?.trim() === '')
    throw new UsageError(
      `--port must be a whole number from 0 to 65535, got "${values.port}"`,
      'Run `tern-launcher --help`.',
    );
  const host = values.host?.trim() ?? DEFAULT_HOST;
  if (host === '') throw new UsageError('--host must not be empty', 'Pass an address such as 127.0.0.1.');
  return { kind: 'serve', host, port, browser: !values['no-browser'] };
}

function explain(error: unknown, host: string, port: number): CliError {
  if (error instanceof SetupTokenError) {
    const fix = `Set a longer one, or unset ${SETUP_TOKEN_VARIABLE}.`;
    return new CliError(error.code, 'cannot use the preset setup token', error.message, fix);
  }
  if (error instanceof LauncherConfigError)
    return new CliError(
      error.code,
      'cannot read the launcher config',
      error.message,
      'Fix the JSON or remove the file.',
    );
  const code = (error as { code?: unknown }).code;
  const where = `cannot listen on ${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new CliError(
      'port_in_use',
      where,
      'another program uses that port',
      'Stop it, or pass --port with another number.',
    );
  if (code === 'EACCES')
    return new CliError('port_denied', where, 'this user may not use that port', 'Pass --port 1024 or higher.');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new CliError('host_unavailable', where, 'no network interface has that address', 'Pass --host 127.0.0.1.');
  return new CliError(
    'internal',
    'the launcher failed to start',
    String((error as Error)?.message ?? error),
    'Run it again and report it if it repeats.',
  );
}

function stopOnSignal(launcher: RunningLauncher, host: GatewayHost, dashboard: { close(): void }): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      dashboard.close();
      void host
        .close()
        .then(() => launcher.close())
        .then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/**
 * The preset setup token, taken out of this process's environment: the gateway runs in this process, and what it
 * starts (exec without isolation, MCP servers with `inherit_env`) must not inherit the token.
 */
function takeSetupToken(): string | undefined {
  const preset = process.env[SETUP_TOKEN_VARIABLE]?.trim();
  delete process.env[SETUP_TOKEN_VARIABLE];
  return preset || undefined;
}

async function serve(options: ServeOptions): Promise<number> {
  const setupToken = takeSetupToken();
  const where = { host: options.host, port: options.port };
  const launcher = await startLauncher({ home: agentHome(), ...where, setupToken }).catch((error: unknown) => {
    throw explain(error, where.host, where.port);
  });
  for (const note of startupNotes(launcher, process.env)) process.stderr.write(`tern-launcher: ${note}\n`);
  const setupUrl = `${launcher.url}/launcher-setup?setup_token=${encodeURIComponent(launcher.setupToken)}`;
  if (!(await launcher.initialized())) {
    const line = `no dashboard password yet; create it at ${setupUrl} (setup token ${launcher.setupToken})`;
    process.stdout.write(`tern-launcher: ${line}\n`);
  }
  const host = gatewayHost(process.env);
  const dashboard = mountDashboard(launcher, host);
  await host.start();
  const failure = host.lastError();
  if (failure)
    process.stderr.write(
      `tern-launcher: the gateway did not start (${failure}). Fix the ` +
        `config on the Config page, then start it on the Gateway page.\n`,
    );
  process.stdout.write(`tern-launcher: dashboard at ${launcher.url}\n`);
  if (options.browser) openBrowser((await launcher.initialized()) ? launcher.url : setupUrl);
  await stopOnSignal(launcher, host, dashboard);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  try {
    const options = parseOptions(argv);
    if (options.kind === 'serve') return await serve(options);
    if (options.kind === 'reset-login-limits') {
      resetLoginLimits(agentHome());
      process.stdout.write(`tern-launcher: ${RESET_DONE}\n`);
      return 0;
    }
    process.stdout.write(`${HELP}\n`);
    return 0;
  } catch (error) {
    const failure =
      error instanceof CliError
        ? error
        : new CliError(
            'internal',
            'the launcher stopped unexpectedly',
            String((error as Error)?.message ?? error),
            'Run it again and report it if it repeats.',
          );
    process.stderr.write(`tern-launcher: ${failure.message}\n`);
    return failure.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));

import { spawn } from 'node:child_process';
import { listMcpText } from '../../../actors/mcp/chat-views.js';
import type { ConnectionState } from '../../../actors/mcp/connection-state.js';
import { mcpOptionsFromConfig } from '../../mcp/from-config.js';
import { McpManager, type McpServerStatus } from '../../../actors/mcp/manager.js';
import { mcpLogin } from '../../mcp/oauth-login.js';
import { McpConfigError, TRANSPORTS, type McpOptions } from '../../mcp/options.js';
import { ConfigError, type LoadedConfig } from '../../../store/config/index.js';
import { editMcpServers, McpServerEditError } from '../../../store/mcp-server-config.js';
import type { RawObject } from '../../../store/config/raw.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';

const SUBCOMMANDS = ['list', 'show', 'add', 'remove', 'test', 'login'] as const;
const CONNECT_TIMEOUT_MS = 15_000;
/** One attempt per command: a CLI never waits out a retry. */
const NO_RETRY = { initialMs: 3_600_000, maxMs: 3_600_000 };

function nameArgument(context: CommandContext, sub: string): string {
  const name = context.positionals[1];
  if (!name)
    throw new UsageError(
      `mcp ${sub} needs a server name`,
      `Run \`tern mcp ${sub} NAME\`; \`tern mcp list\` shows the names.`,
    );
  return name;
}

function serverOptions(options: McpOptions, name: string): McpOptions {
  const server = options.servers[name];
  if (!server) {
    const known = Object.keys(options.servers);
    throw new CliError(
      'mcp_server_unknown',
      `no MCP server named "${name}"`,
      `configured: ${known.join(', ') || 'none'}`,
      'Add it with `tern mcp add`.',
    );
  }
  return { ...options, enabled: true, servers: { [name]: { ...server, enabled: true } } };
}

/** Connects the given servers once, waits until each has connected or failed, and hands the manager over. */
async function connected<T>(
  loaded: LoadedConfig,
  options: McpOptions,
  use: (manager: McpManager) => Promise<T>,
): Promise<T> {
  const manager = new McpManager({
    options,
    workspace: loaded.workspace,
    home: loaded.home,
    backoff: NO_RETRY,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
  try {
    manager.start();
    await Promise.all(Object.keys(options.servers).map((name) => manager.settled(name)));
    return await use(manager);
  } catch (error) {
    if (error instanceof McpConfigError)
      throw new CliError(error.code, 'the MCP config cannot start', error.message, 'Fix tools.mcp in the config file.');
    throw error;
  } finally {
    await manager.stop();
  }
}

function connectionJson(state: ConnectionState) {
  return state.state === 'failed' ? { state: state.state, reason: state.reason } : state;
}

async function list(context: CommandContext): Promise<number> {
  const loaded = readConfigForCli(context.env);
  const options = mcpOptionsFromConfig(loaded.config.tools.mcp);
  const statuses = await connected(loaded, options, async (manager) => manager.statuses());
  if (context.json) {
    print(
      context.stdout,
      JSON.stringify({ ok: true, servers: statuses.map((s) => ({ ...s, connection: connectionJson(s.connection) })) }),
    );
  } else {
    print(context.stdout, listMcpText(statuses));
    if (!options.enabled && statuses.length > 0)
      print(context.stderr, 'tern: note: tools.mcp.enabled is false, so the gateway connects none of these.');
  }
  return 0;
}

function failure(status: McpServerStatus | undefined, name: string): CliError {
  const reason = status?.connection.state === 'failed' ? status.connection.reason : 'no answer';
  return new CliError(
    'mcp_connect_failed',
    `MCP server ${name} did not connect`,
    reason,
    `Check tools.mcp.servers.${name} and run \`tern mcp test ${name}\` again.`,
  );
}

async function testOrShow(context: CommandContext, sub: 'test' | 'show'): Promise<number> {
  const name = nameArgument(context, sub);
  const loaded = readConfigForCli(context.env);
  const options = serverOptions(mcpOptionsFromConfig(loaded.config.tools.mcp), name);
  return connected(loaded, options, async (manager) => {
    const status = manager.statuses()[0];
    if (status?.connection.state !== 'connected') throw failure(status, name);
    const tools = manager
      .catalogue()
      .map((tool) => ({ name: tool.name, remote_name: tool.remoteName, description: tool.summary }));
    if (context.json)
      print(
        context.stdout,
        JSON.stringify({
          ok: true,
          server: name,
          transport: status.transport,
          tools: sub === 'show' ? tools : tools.length,
        }),
      );
    else if (sub === 'test')
      print(context.stdout, `${name}: connected over ${status.transport}, ${tools.length} tools`);
    else {
      print(context.stdout, `${name} (${status.transport}): ${tools.length} tools`);
      for (const tool of tools) print(context.stdout, `  ${tool.name}  ${tool.description.split('\n')[0] ?? ''}`);
    }
    return 0;
  });
}

function pairs(values: unknown, option: string): Record<string, string> {
  const list = Array.isArray(values) ? values : [];
  return Object.fromEntries(
    list.map((item) => {
      const text = String(item);
      const at = text.indexOf('=');
      if (at <= 0)
        throw new UsageError(`--${option} "${text}" is not KEY=VALUE`, `Write it as --${option} NAME=value.`);
      return [text.slice(0, at), text.slice(at + 1)];
    }),
  );
}

/** `add NAME URL`, `add NAME --url URL`, or `add NAME [--] COMMAND ARGS…`. */
function serverFromArguments(context: CommandContext): RawObject {
  const { values } = context;
  const rest = context.positionals.slice(2);
  const type = typeof values.type === 'string' ? values.type : undefined;
  if (type !== undefined && !(TRANSPORTS as readonly string[]).includes(type)) {
    throw new UsageError(
      `--type "${type}" is not a transport (allowed: ${TRANSPORTS.join(', ')})`,
      'Run `tern mcp --help`.',
    );
  }
  const urlFromPosition = rest.length === 1 && /^https?:\/\//i.test(rest[0]!) ? rest[0] : undefined;
  const url = typeof values.url === 'string' ? values.url : urlFromPosition;
  const [command, ...args] = url ? [] : rest;
  if (!url && !command)
    throw new UsageError(
      'mcp add needs a URL or a command',
      'Run `tern mcp add NAME https://host/mcp` or `tern mcp add NAME -- COMMAND ARGS…`.',
    );
  const env = pairs(values.env, 'env');
  const headers = pairs(values.header, 'header');
  return {
    enabled: values.disabled !== true,
    ...(type ? { type } : {}),
    ...(url ? { url } : { command, args }),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(typeof values['env-file'] === 'string' ? { env_file: values['env-file'] } : {}),
    ...(values['inherit-env'] === true ? { inherit_env: true } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(values.deferred === true ? { deferred: true } : {}),
    ...(values.oauth === true ? { oauth: {} } : {}),
  };
}

function edit(context: CommandContext, sub: 'add' | 'remove'): number {
  const name = nameArgument(context, sub);
  // A config that is unusable already is said as every command says it; a problem after the edit is the edit's.
  const { path } = readConfigForCli(context.env);
  try {
    editMcpServers(
      path,
      sub === 'add' ? { kind: 'set', name, server: serverFromArguments(context) } : { kind: 'remove', name },
    );
  } catch (error) {
    if (error instanceof McpServerEditError) {
      throw new CliError(
        error.code,
        `no MCP server named "${name}"`,
        `configured: ${error.known.join(', ') || 'none'}`,
        'Run `tern mcp list` to see the names.',
      );
    }
    if (error instanceof ConfigError) {
      throw new CliError(
        error.code,
        `the config would not be valid with this ${sub}`,
        error.problems.join('; '),
        'Nothing was written; fix the arguments.',
      );
    }
    throw error;
  }
  print(
    context.stdout,
    context.json
      ? JSON.stringify({ ok: true, [sub === 'add' ? 'added' : 'removed']: name, path })
      : `${sub === 'add' ? 'added' : 'removed'} MCP server ${name} (${path})`,
  );
  return 0;
}

/** The browser opens only where one can: a display and no `--no-browser`; the URL is always printed. */
function browserFor(context: CommandContext): (url: URL) => Promise<void> {
  return async (url) => {
    print(context.stderr, `Open this URL to log in:\n${url.href}`);
    if (context.values['no-browser'] === true || !context.env.DISPLAY) return;
    spawn('xdg-open', [url.href], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  };
}

async function login(context: CommandContext): Promise<number> {
  const name = nameArgument(context, 'login');
  const loaded = readConfigForCli(context.env);
  const server = mcpOptionsFromConfig(loaded.config.tools.mcp).servers[name];
  if (!server)
    throw new CliError(
      'mcp_server_unknown',
      `no MCP server named "${name}"`,
      'not in tools.mcp.servers',
      'Add it with `tern mcp add NAME URL --oauth`.',
    );
  try {
    await mcpLogin({ name, server, home: loaded.home, openBrowser: browserFor(context), signal: context.signal });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      typeof code === 'string' ? code : 'mcp_login_failed',
      `login to ${name} failed`,
      (error as Error).message,
      `Run \`tern mcp login ${name}\` again.`,
    );
  }
  print(context.stdout, context.json ? JSON.stringify({ ok: true, server: name }) : `logged in to ${name}`);
  return 0;
}

export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  switch (sub) {
    case 'list':
      return list(context);
    case 'show':
    case 'test':
      return testOrShow(context, sub);
    case 'add':
    case 'remove':
      return edit(context, sub);
    case 'login':
      return login(context);
    default:
      throw subcommandError('mcp', sub, SUBCOMMANDS);
  }
}

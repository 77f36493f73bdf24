import { checkPlugins } from '../../../actors/plugins/plugin-check.js';
import type { PluginRow } from '../../../actors/plugins/plugin-host.js';
import { pluginListText } from '../../../actors/plugins/plugin-list.js';
import type { Envelope } from '../../../bus/index.js';
import { ConfigError, type LoadedConfig } from '../../../store/config/index.js';
import { EventLog } from '../../../store/log/event-log.js';
import { logDir } from '../../../store/paths.js';
import { editPluginEntry } from '../../../store/plugins/entries.js';
import { installPlugin, PluginInstallError, removePlugin } from '../../../store/plugins/install.js';
import { discoverPlugins } from '../../../store/plugins/discover.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';

const SUBCOMMANDS = ['list', 'install', 'remove', 'enable', 'disable'] as const;
const HELP = 'Run `tern plugins --help`.';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

type Seen = Pick<PluginRow, 'state' | 'reason'>;

/** The states a running gateway published since it started, or nothing when no gateway runs. */
function gatewayStates(loaded: LoadedConfig): Map<string, Seen> | undefined {
  let log: EventLog;
  try {
    log = EventLog.open(logDir(loaded.workspace), { readOnly: true });
  } catch {
    return undefined;
  }
  try {
    const [started] = log.read({ type: 'runtime.started', order: 'desc', limit: 1 }) as Array<
      Envelope<'runtime.started'>
    >;
    if (started?.data.command !== 'gateway' || !alive(started.data.pid)) return undefined;
    const states = log.read({ type: 'plugin.state', after: started.seq }) as Array<Envelope<'plugin.state'>>;
    return new Map(states.map((e) => [e.data.plugin, e.data]));
  } finally {
    log.close();
  }
}

/**
 * The plugins as the gateway runs them: asked directly when this runs in the gateway, else read from its log (a
 * gateway that does not serve the CLI).
 */
async function runningStates(context: CommandContext, loaded: LoadedConfig): Promise<Map<string, Seen> | undefined> {
  if (!context.gateway) return gatewayStates(loaded);
  const engine = await context.gateway.engine();
  await engine.plugins.load();
  return new Map(engine.plugins.rows().map((row) => [row.name, row]));
}

/** A running gateway's view where it has one (it knows about channels); otherwise each plugin is loaded here to see. */
async function rows(context: CommandContext, loaded: LoadedConfig): Promise<PluginRow[]> {
  const running = await runningStates(context, loaded);
  if (!running) return checkPlugins(loaded, context.env);
  return discoverPlugins(loaded.config, loaded.home).map((found) => {
    const entry = loaded.config.plugins.entries[found.name];
    const seen = running.get(found.name);
    const version = found.ok ? found.manifest.version : undefined;
    const base = { name: found.name, ...(version ? { version } : {}), path: found.dir };
    if (!entry) return { ...base, state: 'not enabled' as const };
    if (!entry.enabled || !loaded.config.plugins.enabled) return { ...base, state: 'disabled' as const };
    if (!seen)
      return {
        ...base,
        state: 'failed' as const,
        reason: 'enabled after the gateway started; restart the gateway to load it',
      };
    return { ...base, state: seen.state, ...(seen.reason ? { reason: seen.reason } : {}) };
  });
}

async function list(context: CommandContext): Promise<number> {
  const loaded = readConfigForCli(context.env);
  const found = await rows(context, loaded);
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, plugins: found }));
  else print(context.stdout, pluginListText(found));
  return 0;
}

function nameArgument(context: CommandContext, sub: string): string {
  const name = context.positionals[1];
  if (!name || context.positionals.length > 2)
    throw new UsageError(
      `plugins ${sub} takes one ${sub === 'install' ? 'package name or folder' : 'plugin name'}`,
      HELP,
    );
  return name;
}

function install(context: CommandContext): Promise<number> {
  const spec = nameArgument(context, 'install');
  const loaded = readConfigForCli(context.env);
  return installPlugin(loaded.home, spec, context.cwd ?? process.cwd()).then(
    ({ manifest, dir }) => {
      if (context.json)
        print(
          context.stdout,
          JSON.stringify({
            ok: true,
            plugin: { name: manifest.name, version: manifest.version, state: 'not enabled', path: dir },
          }),
        );
      else
        print(
          context.stdout,
          `installed ${manifest.name} ${manifest.version} in ${dir}; ` +
            `run \`tern plugins enable ${manifest.name}\` to load it`,
        );
      return 0;
    },
    (error: unknown) => {
      if (error instanceof PluginInstallError)
        throw new CliError(
          error.code,
          `cannot install ${spec}`,
          error.message,
          error.code === 'npm_failed'
            ? 'Check the name (or folder) and your network, then try again.'
            : 'Install a package that has a valid tern-plugin.json.',
        );
      throw error;
    },
  );
}

function known(loaded: LoadedConfig, name: string): void {
  const names = discoverPlugins(loaded.config, loaded.home).map((p) => p.name);
  if (!names.includes(name))
    throw new CliError(
      'plugin_unknown',
      `no plugin named "${name}"`,
      `installed or configured: ${names.join(', ') || 'none'}`,
      'Run `tern plugins list`, or install it with `tern plugins install NAME`.',
    );
}

function edit(loaded: LoadedConfig, kind: 'enable' | 'disable' | 'remove', name: string): void {
  try {
    editPluginEntry(loaded.path, { kind, name });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(
      error.code,
      `cannot change plugins.entries.${name}`,
      error.problems.join('; '),
      'Fix the config file and run `tern config validate`.',
    );
  }
}

async function toggle(context: CommandContext, sub: 'enable' | 'disable'): Promise<number> {
  const name = nameArgument(context, sub);
  const loaded = readConfigForCli(context.env);
  known(loaded, name);
  edit(loaded, sub, name);
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, plugin: { name, enabled: sub === 'enable' } }));
  else
    print(
      context.stdout,
      `${sub}d ${name} in ${loaded.path}; a running gateway loads plugins when it starts, so restart it`,
    );
  return 0;
}

async function remove(context: CommandContext): Promise<number> {
  const name = nameArgument(context, 'remove');
  const loaded = readConfigForCli(context.env);
  known(loaded, name);
  const installed = discoverPlugins(loaded.config, loaded.home).find((p) => p.name === name)?.source === 'installed';
  try {
    if (installed) await removePlugin(loaded.home, name);
  } catch (error) {
    if (error instanceof PluginInstallError)
      throw new CliError(
        error.code,
        `cannot remove ${name}`,
        error.message,
        'Run `tern plugins list` to see where it is.',
      );
    throw error;
  }
  if (loaded.config.plugins.entries[name]) edit(loaded, 'remove', name);
  if (context.json) print(context.stdout, JSON.stringify({ ok: true, removed: name }));
  else print(context.stdout, `removed ${name}${installed ? '' : ' from the config (its folder stays where it is)'}`);
  return 0;
}

export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  switch (sub) {
    case 'list':
      return list(context);
    case 'install':
      return install(context);
    case 'remove':
      return remove(context);
    case 'enable':
    case 'disable':
      return toggle(context, sub);
    default:
      throw subcommandError('plugins', sub, SUBCOMMANDS);
  }
}

import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHooks, emitterHook, type Hooks } from '../../bus/index.js';
import type { ChildLog } from '../hooks/supervised-child.js';
import {
  loadTimeout,
  PluginLoadError,
  type PluginCommand,
  type PluginChannelSpec,
  type PluginParts,
  type PluginToLoad,
  type TernPluginApi,
} from './api.js';
import { pluginTool, PluginToolError, resultOf, type PluginTool } from './plugin-tool.js';

const COMMAND_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** Where a syntax error is: dynamic `import()` does not say, `node --check` does (`<file>:<line>`). */
function syntaxErrorPlace(entry: string, dir: string): string {
  const checked = spawnSync(process.execPath, ['--check', entry], { encoding: 'utf8', timeout: 10_000 });
  const place = /^(.+):(\d+)$/m.exec(checked.stderr ?? '');
  return place ? ` (${relative(dir, place[1]!)}:${place[2]})` : '';
}

function loadFailure(error: unknown, plugin: PluginToLoad): PluginLoadError {
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  const place = name === 'SyntaxError' ? syntaxErrorPlace(plugin.entry, plugin.dir) : '';
  return new PluginLoadError('load_failed', `${name}: ${message}${place}`);
}

const handles = (hooks: Hooks): boolean => [...hooks.all.values()].some((handlers) => handlers.length > 0);

/**
 * A trusted plugin, imported into the gateway's own process: its module's `activate(api)` (default export or
 * named) registers tools, commands, channel kinds and hooks. Something registered without the capability in the
 * manifest is left out and the plugin is degraded; a module that does not load, an `activate` that throws, or an
 * import and `activate` that take longer than `timeoutMs` fail it. A load cut off that way cannot be stopped (it is
 * in this process): what it registers later is ignored, and if it finishes its `deactivate` runs.
 */
export function loadInProcess(plugin: PluginToLoad, log: ChildLog): Promise<PluginParts> {
  let late = false;
  const loading = loadModule(plugin, log, () => late);
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      void loading.then(
        (parts) => parts.close(),
        () => undefined,
      );
      reject(loadTimeout('its import and activate did not finish', plugin.timeoutMs));
    }, plugin.timeoutMs);
  });
  return Promise.race([loading, limit]).finally(() => clearTimeout(timer));
}

async function loadModule(plugin: PluginToLoad, log: ChildLog, late: () => boolean): Promise<PluginParts> {
  let module: { default?: unknown; activate?: unknown; deactivate?: unknown };
  try {
    module = (await import(pathToFileURL(plugin.entry).href)) as typeof module;
  } catch (error) {
    throw loadFailure(error, plugin);
  }
  const activate = typeof module.default === 'function' ? module.default : module.activate;
  if (typeof activate !== 'function')
    throw new PluginLoadError(
      'load_failed',
      `${relative(plugin.dir, plugin.entry)} exports no activate ` +
        `function (export default function activate(api) { … })`,
    );
  const tools: PluginTool[] = [];
  const commands: PluginCommand[] = [];
  const channels: PluginChannelSpec[] = [];
  const problems: string[] = [];
  const asked = (capability: string, what: string): boolean => {
    if (late()) return false;
    if (plugin.capabilities.includes(capability)) return true;
    problems.push(`it registered ${what}, but its manifest does not ask for "${capability}"`);
    return false;
  };
  const hooks = createHooks();
  const api: TernPluginApi = {
    name: plugin.name,
    version: plugin.version,
    config: plugin.config,
    dataDir: plugin.dataDir,
    hooks,
    registerTool(spec) {
      if (!asked('tools', `tool ${String(spec?.name)}`)) return;
      try {
        tools.push(pluginTool(plugin.name, spec, async (args, context) => resultOf(await spec.execute(args, context))));
      } catch (error) {
        if (!(error instanceof PluginToolError)) throw error;
        problems.push(error.message);
      }
    },
    registerCommand(spec) {
      if (!asked('commands', `command /${String(spec?.name)}`)) return;
      if (typeof spec?.name !== 'string' || !COMMAND_NAME.test(spec.name) || typeof spec.run !== 'function') {
        problems.push(
          `command ${JSON.stringify(spec?.name)} is not allowed (allowed: a lower-case word and a run function)`,
        );
        return;
      }
      commands.push({
        name: spec.name,
        description: spec.description ?? '',
        run: async (args, context) => String(await spec.run(args, context)),
      });
    },
    registerChannel(spec) {
      if (!asked('channels', `channel kind ${String(spec?.kind)}`)) return;
      if (typeof spec?.kind !== 'string' || spec.kind === '' || typeof spec.create !== 'function') {
        problems.push(`channel kind ${JSON.stringify(spec?.kind)} needs a kind name and a create function`);
        return;
      }
      channels.push(spec);
    },
    log: (level, message, fields) => log(level, message, { plugin: plugin.name, ...fields }),
  };
  try {
    await activate(api);
  } catch (error) {
    throw new PluginLoadError('activate_failed', `activate failed: ${(error as Error)?.message ?? String(error)}`);
  }
  const hook = handles(hooks) && asked('hooks', 'hooks') ? emitterHook(plugin.name, plugin.priority, hooks) : undefined;
  const deactivate = module.deactivate;
  return {
    tools,
    commands,
    channels,
    hook,
    problems,
    close: async () => {
      hooks.all.clear();
      if (typeof deactivate === 'function') await deactivate();
    },
  };
}

import { DEFAULT_FILTER } from '../../adapters/tools/options.js';
import { ToolRegistry } from '../../adapters/tools/registry.js';
import { InProcessBus } from '../../bus/index.js';
import type { LoadedConfig } from '../../store/config/index.js';
import { PluginHost, type PluginRow } from './plugin-host.js';

/**
 * The plugins' states as a gateway starting now would find them: each enabled plugin is loaded the same way
 * (in this process when trusted, as a child process otherwise) and closed again. Channels are not started, so a
 * channel that cannot connect shows only in a running gateway.
 */
export async function checkPlugins(loaded: LoadedConfig, env: NodeJS.ProcessEnv): Promise<PluginRow[]> {
  const host = new PluginHost({
    bus: new InProcessBus(),
    config: () => loaded.config,
    home: loaded.home,
    env,
    tools: new ToolRegistry(DEFAULT_FILTER, loaded.workspace),
    hooks: { add: () => true },
    log: () => {},
  });
  try {
    await host.load();
    return host.rows();
  } finally {
    await host.close();
  }
}

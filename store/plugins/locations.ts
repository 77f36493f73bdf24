import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import { expandHome } from '../paths.js';

/** Installed plugin packages live in `<AGENT_HOME>/plugins` (an npm prefix: `node_modules/<name>`). */
export function pluginsDir(home: string): string {
  return join(home, 'plugins');
}

/** The default plugin-data root; the file tools refuse it like credentials (a custom `data_dir` is not covered). */
export function defaultPluginsDataDir(home: string): string {
  return join(home, 'plugins-data');
}

export function pluginsDataDir(config: Config, home: string): string {
  return config.plugins.data_dir ? expandHome(config.plugins.data_dir) : defaultPluginsDataDir(home);
}

/** A plugin's own data folder (`<data root>/<name>`), created on first use. */
export function pluginDataDir(config: Config, home: string, plugin: string): string {
  const dir = join(pluginsDataDir(config, home), plugin);
  mkdirSync(dir, { recursive: true });
  return dir;
}

import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Config } from '../config/index.js';
import { expandHome } from '../paths.js';
import { pluginsDir } from './locations.js';
import { MANIFEST_FILE, PluginManifestError, readManifest, type PluginManifest } from './manifest.js';

/** A plugin package found on disk (or named in the config and missing), with its manifest or what is wrong with it. */
export type FoundPlugin = {
  name: string;
  dir: string;
  /** Installed under `<AGENT_HOME>/plugins`, or a folder named by `plugins.entries.<name>.path`. */
  source: 'installed' | 'path';
} & ({ ok: true; manifest: PluginManifest; entry: string } | { ok: false; problem: string });

function packageDirs(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true }).flatMap((item) => {
    if (!item.isDirectory() && !item.isSymbolicLink()) return [];
    const dir = join(root, item.name);
    return item.name.startsWith('@') ? packageDirs(dir) : [dir];
  });
}

function found(name: string, dir: string, source: FoundPlugin['source']): FoundPlugin {
  try {
    const { manifest, entry } = readManifest(dir);
    if (source === 'path' && manifest.name !== name)
      return {
        name,
        dir,
        source,
        ok: false,
        problem: `its ${MANIFEST_FILE} names it "${manifest.name}", not "${name}"`,
      };
    return { name: source === 'path' ? name : manifest.name, dir, source, ok: true, manifest, entry };
  } catch (error) {
    if (!(error instanceof PluginManifestError)) throw error;
    return { name, dir, source, ok: false, problem: error.message };
  }
}

/** The packages in `<AGENT_HOME>/plugins/node_modules` that carry a manifest (their dependencies do not). */
export function installedPlugins(home: string): FoundPlugin[] {
  const modules = join(pluginsDir(home), 'node_modules');
  return packageDirs(modules)
    .filter((dir) => existsSync(join(dir, MANIFEST_FILE)))
    .map((dir) => found(dir.slice(modules.length + 1), dir, 'installed'));
}

/**
 * Every plugin Tern knows of: the installed packages and the folders config entries name, by name. An entry that
 * names neither is found too, as missing, so its state can say so.
 */
export function discoverPlugins(config: Config, home: string): FoundPlugin[] {
  const byName = new Map(installedPlugins(home).map((plugin) => [plugin.name, plugin]));
  for (const [name, entry] of Object.entries(config.plugins.entries)) {
    if (entry.path !== undefined) {
      const path = expandHome(entry.path);
      byName.set(name, found(name, isAbsolute(path) ? path : join(home, path), 'path'));
    } else if (!byName.has(name)) {
      byName.set(name, {
        name,
        dir: join(pluginsDir(home), 'node_modules', name),
        source: 'installed',
        ok: false,
        problem: `not installed (run \`tern plugins install ${name}\`)`,
      });
    }
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { expandHome } from '../paths.js';
import { pluginsDir } from './locations.js';
import { MANIFEST_FILE, PluginManifestError, readManifest, type PluginManifest } from './manifest.js';

export class PluginInstallError extends Error {
  constructor(
    readonly code: 'npm_failed' | 'not_a_plugin' | 'not_installed',
    message: string,
  ) {
    super(message);
    this.name = 'PluginInstallError';
  }
}

/** Runs npm in the plugins folder; resolves with its exit code and the end of what it printed to stderr. */
export type NpmRunner = (args: string[], cwd: string) => Promise<{ code: number; stderr: string }>;

export const runNpm: NpmRunner = (args, cwd) =>
  new Promise((resolveRun) => {
    const child = spawn('npm', args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (error) => resolveRun({ code: -1, stderr: `cannot run npm (${error.message})` }));
    child.on('exit', (code) => resolveRun({ code: code ?? -1, stderr }));
  });

/** The plugins folder as an npm prefix of its own, created on first use. */
function prefix(home: string): string {
  const dir = pluginsDir(home);
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest))
    writeFileSync(
      manifest,
      `${JSON.stringify(
        { name: 'tern-plugins', private: true, description: 'Plugin packages installed by tern plugins install' },
        null,
        2,
      )}\n`,
    );
  return dir;
}

/** A local folder (relative paths from where the command runs), else a registry spec such as `name@1.2.0`. */
function localFolder(spec: string, cwd: string): string | undefined {
  const path = resolve(cwd, expandHome(spec));
  const looksLocal = spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('~') || isAbsolute(spec);
  return looksLocal || (existsSync(path) && statSync(path).isDirectory()) ? path : undefined;
}

/** `@scope/name@1.0.0` → `@scope/name`. */
function registryName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at > 0 ? spec.slice(0, at) : spec;
}

function packageNameOf(folder: string): string {
  for (const file of ['package.json', MANIFEST_FILE]) {
    const path = join(folder, file);
    if (!existsSync(path)) continue;
    const name = (JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  throw new PluginInstallError(
    'not_a_plugin',
    `${folder} has neither a package.json nor a ${MANIFEST_FILE} with a name`,
  );
}

async function npm(home: string, args: string[], runner: NpmRunner): Promise<void> {
  const { code, stderr } = await runner(
    [...args, '--prefix', prefix(home), '--no-audit', '--no-fund', '--loglevel', 'error'],
    prefix(home),
  );
  if (code !== 0)
    throw new PluginInstallError(
      'npm_failed',
      `npm ${args[0]} failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`,
    );
}

/**
 * Installs a plugin package with npm into `<AGENT_HOME>/plugins`: from the registry by name, or a local folder
 * (linked, so edits show at the next start). A package without a valid `tern-plugin.json` is removed again.
 */
export async function installPlugin(
  home: string,
  spec: string,
  cwd: string,
  runner: NpmRunner = runNpm,
): Promise<{ manifest: PluginManifest; dir: string }> {
  const folder = localFolder(spec, cwd);
  const name = folder ? packageNameOf(folder) : registryName(spec);
  await npm(home, ['install', folder ?? spec], runner);
  const dir = join(pluginsDir(home), 'node_modules', name);
  try {
    return { manifest: readManifest(dir).manifest, dir };
  } catch (error) {
    if (!(error instanceof PluginManifestError)) throw error;
    await npm(home, ['uninstall', name], runner);
    throw new PluginInstallError('not_a_plugin', `${name} is not a Tern plugin: ${error.message}`);
  }
}

export async function removePlugin(home: string, name: string, runner: NpmRunner = runNpm): Promise<void> {
  if (!existsSync(join(pluginsDir(home), 'node_modules', name)))
    throw new PluginInstallError('not_installed', `${name} is not installed in ${pluginsDir(home)}`);
  await npm(home, ['uninstall', name], runner);
}

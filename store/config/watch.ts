import { existsSync, readFileSync } from 'node:fs';
import type { Bus } from '../../bus/bus.js';
import { configPath, credentialsPath } from '../paths.js';
import { changedPaths } from './diff.js';
import { ConfigError } from './errors.js';
import { loadConfig, type LoadedConfig } from './load.js';
import type { Config } from './schema/index.js';

/** The config-file check runs every 2 s, times `power.poll_interval_multiplier`. */
export const CONFIG_POLL_MS = 2000;

export interface WatchOptions {
  bus: Bus;
  /** The config file; by default the one `loadConfig` reads for `env`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  intervalMs?: number;
  onChange(loaded: LoadedConfig): void;
  /** Where a rejected edit is explained; stderr by default. */
  log?: (line: string) => void;
}

function contentOf(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

function problemsOf(error: unknown): string[] {
  if (error instanceof ConfigError) return error.problems;
  return [`(file): cannot be read (${(error as Error)?.message ?? String(error)})`];
}

/**
 * Hot reload: when the config or credentials file changes, a valid edit publishes `config.reloaded` with the
 * changed paths and calls `onChange`; an invalid one publishes `config.rejected`, logs why, and the running
 * config stays. Content is compared rather than mtime, so two edits within one clock tick are both seen.
 * The timer keeps the process alive until `stop()`.
 */
export function watchConfig(options: WatchOptions): { stop(): void } {
  const env = options.env ?? process.env;
  const path = options.path ?? configPath(env);
  const files = [path, credentialsPath(env)];
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const initial = loadConfig({ env, path });
  let current: Config = initial.config;
  let seen = files.map(contentOf).join('\0');

  const check = (): void => {
    try {
      const now = files.map(contentOf).join('\0');
      if (now === seen) return;
      seen = now;
      const loaded = loadConfig({ env, path });
      const changed = changedPaths(current, loaded.config);
      current = loaded.config;
      if (changed.length === 0) return;
      options.bus.publish({ type: 'config.reloaded', data: { changed } });
      options.onChange(loaded);
    } catch (error) {
      const problems = problemsOf(error);
      options.bus.publish({ type: 'config.rejected', data: { problems } });
      log(`config: the edit of ${path} was rejected and the running config stays (${problems.join('; ')})`);
    }
  };

  const timer = setInterval(check, options.intervalMs ?? CONFIG_POLL_MS * initial.config.power.poll_interval_multiplier);
  return { stop: () => clearInterval(timer) };
}

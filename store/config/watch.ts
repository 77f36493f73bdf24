import { readFileSync } from 'node:fs';
import type { Bus } from '../../bus/bus.js';
import { configPath, credentialsPath } from '../paths.js';
import { changedPaths } from './diff.js';
import { ConfigError } from './errors.js';
import { loadConfig, type LoadedConfig } from './load.js';
import { pollMultiplier } from './poll-multiplier.js';
import type { Config } from './schema/index.js';

/** The config-file check runs every 2 s, times `power.poll_interval_multiplier` (as it is after the last reload). */
export const CONFIG_POLL_MS = 2000;

/** Timers behind an interface, so a host with a clock of its own (the gateway's scheduler) runs the checks on it. */
export interface WatchTimer {
  after(ms: number, run: () => void): { cancel(): void };
}

/** Without a host's timer: a plain one, which keeps the process alive until `stop()`. */
const ownTimer: WatchTimer = {
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

export interface WatchOptions {
  bus: Bus;
  /** The config file; by default the one `loadConfig` reads for `env`. */
  path?: string;
  env?: NodeJS.ProcessEnv;
  /** A fixed interval between checks; by default 2 s × the current `power.poll_interval_multiplier`. */
  intervalMs?: number;
  timer?: WatchTimer;
  onChange(loaded: LoadedConfig): void;
  /**
   * The config as the host loaded it from these files, not changed since: edits are told against it, and the watch
   * does not parse the files again as it starts (a gateway's start, before `/ready`). By default the watch loads it.
   */
  loaded?: LoadedConfig;
  /** Where a rejected edit is explained; stderr by default. */
  log?: (line: string) => void;
}

type FileState = { kind: 'present'; text: string } | { kind: 'missing' } | { kind: 'unreadable'; reason: string };

function stateOf(path: string): FileState {
  try {
    return { kind: 'present', text: readFileSync(path, 'utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', reason: code ?? (error as Error).message };
  }
}

const keyOf = (state: FileState): string =>
  state.kind === 'present' ? `+${state.text}` : state.kind === 'missing' ? '-' : `!${state.reason}`;

function problemsOf(error: unknown): string[] {
  if (error instanceof ConfigError) return error.problems;
  return [`(file): cannot be read (${(error as Error)?.message ?? String(error)})`];
}

/**
 * Why the files as they are now must not replace the running config: the config file it came from is gone
 * (deleted, or moved away while being replaced), or either file cannot be read. A missing credentials file is
 * a real edit: that file is optional.
 */
function unusable(config: FileState, credentials: FileState, paths: string[], fromFile: boolean): string[] {
  const problems: string[] = [];
  if (config.kind === 'missing' && fromFile)
    problems.push(`(file): ${paths[0]} is missing; put it back to apply changes`);
  if (config.kind === 'unreadable') problems.push(`(file): ${paths[0]} cannot be read (${config.reason})`);
  if (credentials.kind === 'unreadable') problems.push(`(file): ${paths[1]} cannot be read (${credentials.reason})`);
  return problems;
}

/**
 * Hot reload: when the config or credentials file changes, a valid edit publishes `config.reloaded` with the
 * changed paths and calls `onChange`; an invalid one, a config file that disappeared and a file that cannot be
 * read publish `config.rejected`, log why, and the running config stays. Content is compared rather than mtime,
 * so two edits within one clock tick are both seen. Each check schedules the next, so a reloaded
 * `power.poll_interval_multiplier` sets the pause after the check that applied it.
 */
export function watchConfig(options: WatchOptions): { stop(): void } {
  const env = options.env ?? process.env;
  const path = options.path ?? configPath(env);
  const files = [path, credentialsPath(env)];
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let current: Config = (options.loaded ?? loadConfig({ env, path })).config;
  const states = files.map(stateOf);
  let seen = states.map(keyOf).join('\0');
  // Defaults (no config file at start) may be replaced by a file that appears; a config read from a file only by the
  // file.
  let fromFile = states[0]!.kind === 'present';
  const reject = (problems: string[]): void => {
    options.bus.publish({ type: 'config.rejected', data: { problems } });
    log(`config: the edit of ${path} was rejected and the running config stays (${problems.join('; ')})`);
  };

  const check = (): void => {
    try {
      const [config, credentials] = files.map(stateOf) as [FileState, FileState];
      const now = [config, credentials].map(keyOf).join('\0');
      if (now === seen) return;
      seen = now;
      const problems = unusable(config, credentials, files, fromFile);
      if (problems.length > 0) return reject(problems);
      const loaded = loadConfig({ env, path });
      fromFile = config.kind === 'present';
      const changed = changedPaths(current, loaded.config);
      current = loaded.config;
      if (changed.length === 0) return;
      options.bus.publish({ type: 'config.reloaded', data: { changed } });
      options.onChange(loaded);
    } catch (error) {
      reject(problemsOf(error));
    }
  };

  const timer = options.timer ?? ownTimer;
  let next: { cancel(): void } | undefined;
  let stopped = false;
  const schedule = (): void => {
    next = timer.after(options.intervalMs ?? CONFIG_POLL_MS * pollMultiplier(current.power), () => {
      check();
      if (!stopped) schedule();
    });
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      next?.cancel();
    },
  };
}

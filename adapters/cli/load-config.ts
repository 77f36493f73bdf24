import { ConfigError, loadConfig, type LoadedConfig, type LoadOptions } from '../../store/config/index.js';
import { modelListCheck } from '../../actors/wiring/models.js';
import { CliError } from './errors.js';

/** The config as the CLI reads it: the loader's checks and the provider layer's, every problem at once. */
export function loadCheckedConfig(options: Omit<LoadOptions, 'check'>): LoadedConfig {
  return loadConfig({ ...options, check: modelListCheck });
}

/**
 * How every command says the config cannot be used: the file, every problem, and what to do. One wording, so a user
 * who met it in one command knows it in the next.
 */
export function configUnusable(error: ConfigError, fix = 'Fix it, then check with `tern config validate`.'): CliError {
  return new CliError(error.code, `cannot use the config ${error.file}`, error.problems.join('; '), fix);
}

function orCliError(load: () => LoadedConfig): LoadedConfig {
  try {
    return load();
  } catch (error) {
    throw error instanceof ConfigError ? configUnusable(error) : error;
  }
}

/** The effective config, or a CliError that lists every problem and says how to see them again. */
export function loadConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  return orCliError(() => loadCheckedConfig({ env }));
}

/** The effective config for a command that only reads it: a version 0/1 file is migrated in memory, never rewritten. */
export function readConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  return orCliError(() => loadConfig({ env, rewrite: false }));
}

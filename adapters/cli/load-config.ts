import { ConfigError, loadConfig, type LoadedConfig, type LoadOptions } from '../../store/config/index.js';
import { modelListCheck } from '../../actors/wiring/models.js';
import { CliError } from './errors.js';

/** The config as the CLI reads it: the loader's checks and the provider layer's, every problem at once. */
export function loadCheckedConfig(options: Omit<LoadOptions, 'check'>): LoadedConfig {
  return loadConfig({ ...options, check: modelListCheck });
}

/** The effective config, or a CliError that lists every problem and says how to see them again. */
export function loadConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  try {
    return loadCheckedConfig({ env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(
      error.code,
      `cannot use the config ${error.file}`,
      error.problems.join('; '),
      'Fix it, then check with `tern config validate`.',
    );
  }
}

/** The effective config for a command that only reads it: a version 0/1 file is migrated in memory, never rewritten. */
export function readConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  try {
    return loadConfig({ env, rewrite: false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(
      error.code,
      `the config ${error.file} cannot be used`,
      error.problems.join('; '),
      'Fix it and run `tern config validate`.',
    );
  }
}

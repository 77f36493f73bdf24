import { ConfigError, loadConfig, type LoadedConfig } from '../../store/config/index.js';
import { modelListProblems } from '../../actors/wiring/models.js';
import { CliError } from './errors.js';

/** The effective config, or a CliError that lists every problem and says how to see them again. */
export function loadConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  try {
    const loaded = loadConfig({ env });
    const problems = modelListProblems(loaded.config);
    if (problems.length > 0) throw new ConfigError('config_invalid', loaded.path, problems);
    return loaded;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(error.code, `cannot use the config ${error.file}`, error.problems.join('; '), 'Fix it, then check with `tern config validate`.');
  }
}

/** The effective config for a command that only reads it: a version 0/1 file is migrated in memory, never rewritten. */
export function readConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  try {
    return loadConfig({ env, rewrite: false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(error.code, `the config ${error.file} cannot be used`, error.problems.join('; '), 'Fix it and run `tern config validate`.');
  }
}

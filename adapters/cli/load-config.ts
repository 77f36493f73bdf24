import { ConfigError, loadConfig, type LoadedConfig } from '../../store/config/index.js';
import { CliError } from './errors.js';

/** The effective config, or a CliError that lists every problem and says how to see them again. */
export function loadConfigForCli(env: NodeJS.ProcessEnv): LoadedConfig {
  try {
    return loadConfig({ env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new CliError(error.code, `cannot use the config ${error.file}`, error.problems.join('; '), 'Fix it, then check with `tern config validate`.');
  }
}

import { ConfigError, loadConfig, type LoadedConfig } from '../../../store/config/index.js';
import { readRawConfig } from '../../../store/config/raw-file.js';
import { versionOf } from '../../../store/config/version.js';
import { configPath } from '../../../store/paths.js';
import { loadCheckedConfig } from '../load-config.js';
import { check, type Check } from './check.js';

/** A version 0 or 1 file, which `--fix` rewrites as version 2 (with dated backups, secrets moved to .security.yml). */
function migrationCheck(env: NodeJS.ProcessEnv, fix: boolean): Check | undefined {
  const path = configPath(env);
  let version: number;
  try {
    version = versionOf(readRawConfig(path), path);
  } catch {
    return undefined;
  }
  if (version !== 0 && version !== 1) return undefined;
  if (!fix)
    return check('migration', 'warn', `${path} is config version ${version}`, {
      fix: 'run `tern doctor --fix` to rewrite it as version 2 (backups are kept; secrets move to .security.yml)',
    });
  try {
    loadConfig({ env });
    return check('migration', 'fixed', `${path} rewritten as version 2 (backups kept beside it)`);
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

/** The config as every command reads it: problems are errors, unknown keys warnings, peer forms notes. */
export function configChecks(env: NodeJS.ProcessEnv, fix: boolean): { checks: Check[]; loaded?: LoadedConfig } {
  const checks: Check[] = [];
  const migration = migrationCheck(env, fix);
  if (migration) checks.push(migration);
  let loaded: LoadedConfig;
  try {
    loaded = loadCheckedConfig({ env, rewrite: false });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    checks.push(
      check(
        'config',
        'error',
        `${error.file}: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}`,
        {
          details: [...error.problems, ...error.excerpt],
          fix: 'fix the fields named, then run `tern config validate`',
        },
      ),
    );
    return { checks };
  }
  if (loaded.channelProblems.length > 0) {
    checks.push(
      check('config', 'error', `${loaded.path}: an enabled channel cannot start`, {
        details: loaded.channelProblems,
        fix: "add the token (config.json or .security.yml) or set the channel's enabled to false",
      }),
    );
  } else {
    const notes =
      loaded.notes.length > 0
        ? `, ${loaded.notes.length} note${loaded.notes.length === 1 ? '' : 's'} (tern config validate shows them)`
        : '';
    checks.push(
      check(
        'config',
        loaded.warnings.length > 0 ? 'warn' : 'ok',
        `${loaded.path}: valid${notes}`,
        loaded.warnings.length > 0 ? { details: loaded.warnings } : {},
      ),
    );
  }
  const enabled = loaded.config.model_list.filter((m) => m.enabled);
  if (enabled.length === 0) {
    checks.push(
      check('models', 'warn', 'no enabled model in model_list: turns cannot run', {
        fix: 'run `tern onboard` or add a model_list entry (see README, Quick start)',
      }),
    );
  }
  return { checks, loaded };
}

import { execIsolationState } from '../../../actors/wiring/exec-isolation.js';
import type { LoadedConfig } from '../../../store/config/index.js';
import { clearStaleLock, staleLockFiles } from '../../../store/log/writer-lock.js';
import { logSizes } from '../../../store/logs/log-sizes.js';
import { agentHome, configPath, logDir } from '../../../store/paths.js';
import { describeFix, looseSecretModes, makeSecretsPrivate, octal } from '../../../store/private-files.js';
import { describeIsolation } from '../../tools/exec/isolation.js';
import { gatewayReady, gatewayUp, healthUrl } from '../gateway-health.js';
import { check, type Check } from './check.js';

/** package.json `engines.node`: the oldest Node this is built and tested for. */
const NODE_MAJOR = 20;

export function nodeCheck(version = process.versions.node): Check {
  const major = Number(version.split('.')[0]);
  if (major >= NODE_MAJOR) return check('node', 'ok', `v${version} (${NODE_MAJOR} or newer needed)`);
  return check('node', 'error', `v${version} is older than Node ${NODE_MAJOR}`, {
    fix: `install Node ${NODE_MAJOR} or newer`,
  });
}

/** Whether exec runs inside bubblewrap: `bwrap --version` and an empty sandbox started as exec starts one. */
export async function isolationCheck(loaded: LoadedConfig): Promise<Check> {
  const state = await execIsolationState(loaded.config);
  if (!state) return check('isolation', 'skipped', 'exec is disabled (tools.exec.enabled is false)');
  const status = state.kind === 'isolated' ? 'ok' : state.kind === 'refused' ? 'error' : 'warn';
  return check('isolation', status, describeIsolation(state));
}

/**
 * Secret files readable by other users (the credentials file, config, dashboard database, tokens, logs). It looks
 * first, so a fix is seen by every check after it.
 */
export function modeCheck(env: NodeJS.ProcessEnv, fix: boolean): Check {
  const home = agentHome(env);
  const config = configPath(env);
  const outside = config.startsWith(`${home}/`) ? undefined : config;
  const loose = looseSecretModes(home, outside);
  if (loose.length === 0) return check('file modes', 'ok', `${home} and its secret files are owner-only`);
  if (fix)
    return check('file modes', 'fixed', `${loose.length} made owner-only`, {
      details: makeSecretsPrivate(home, outside).map(describeFix),
    });
  return check(
    'file modes',
    'error',
    `${loose.length} secret file${loose.length === 1 ? ' is' : 's are'} readable by other users`,
    {
      details: loose.map((f) => `${f.path} (mode ${octal(f.from)})`),
      fix: 'run `tern doctor --fix` (it only takes group and other bits away)',
    },
  );
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** An event log this big is worth a look (it only grows; `tern usage` and replays read it). */
const EVENT_LOG_WARN_BYTES = 1024 ** 3;

export function logCheck(loaded: LoadedConfig): Check {
  const sizes = logSizes(loaded);
  const over = sizes.filter((s) => s.limitBytes !== undefined && s.bytes > s.limitBytes * 1.1);
  const eventLog = sizes.find((s) => s.limitBytes === undefined)!;
  const details = sizes
    .filter((s) => s.bytes > 0)
    .map(
      (s) =>
        `${s.path}: ` +
        `${mb(s.bytes)}${s.limitBytes !== undefined ? ` (rotation keeps it under ${mb(s.limitBytes)})` : ''}`,
    );
  if (over.length > 0)
    return check(
      'logs',
      'warn',
      `${over.length} log${over.length === 1 ? ' is' : 's are'} larger than rotation allows`,
      { details, fix: 'restart the gateway (oversized logs are trimmed at start)' },
    );
  if (eventLog.bytes > EVENT_LOG_WARN_BYTES)
    return check('logs', 'warn', `the event log is ${mb(eventLog.bytes)}`, {
      details,
      fix: 'nothing is lost by keeping it; copy sessions/ elsewhere before moving or deleting it',
    });
  const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
  return check('logs', 'ok', `${mb(total)} in all`, { details });
}

/** A gateway answering on its port, and a lock note a writer that died left behind. */
export async function gatewayCheck(loaded: LoadedConfig, fix: boolean): Promise<Check[]> {
  const url = healthUrl(loaded.config);
  const up = await gatewayUp(url);
  const refused = up ? ((await gatewayReady(url))?.channels ?? []).filter((c) => c.state === 'refused') : [];
  const checks = [
    refused.length === 0
      ? check('gateway', 'ok', up ? `running (${url})` : `not running (${url})`)
      : check(
          'gateway',
          'error',
          `running (${url}), but ` +
            `${refused.length === 1 ? 'a channel cannot' : `${refused.length} channels cannot`} start`,
          {
            details: refused.map((c) => `${c.name}: ${c.reason ?? 'unknown'}`),
            fix: 'fix those channel_list entries in config.json; the gateway reloads them',
          },
        ),
  ];
  const dir = logDir(loaded.workspace);
  const stale = fix ? clearStaleLock(dir) : staleLockFiles(dir);
  if (stale.length > 0) {
    checks.push(
      fix
        ? check('log lock', 'fixed', 'removed what a writer that is gone left behind', { details: stale })
        : check('log lock', 'warn', 'a writer that is gone left its lock note behind', {
            details: stale,
            fix: 'run `tern doctor --fix` to remove it',
          }),
    );
  }
  return checks;
}

import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import type { Check } from '../doctor/check.js';
import { accessChecks } from '../doctor/access-checks.js';
import { configChecks } from '../doctor/config-checks.js';
import { gatewayCheck, isolationCheck, logCheck, modeCheck, nodeCheck } from '../doctor/host-checks.js';
import { channelChecks, modelChecks } from '../doctor/reach-checks.js';

const MARKS: Record<Check['status'], string> = { ok: '✓', warn: '!', error: '✗', fixed: '✓', skipped: '-' };

function line(c: Check): string[] {
  const head = `${MARKS[c.status]} ${c.name.padEnd(18)} ${c.status === 'fixed' ? 'fixed: ' : ''}${c.message}`;
  return [
    head,
    ...(c.details ?? []).map((d) => `    ${d}`),
    ...(c.fix && (c.status === 'warn' || c.status === 'error') ? [`    → ${c.fix}`] : []),
  ];
}

/**
 * Looks at everything a first run trips over: Node, the config (problems, an old version), each model (one short
 * question), each channel (one authenticated call), exec isolation, secret file modes, log sizes, a running gateway
 * and a stale lock. `--offline` asks no model or platform; `--fix` applies the safe fixes (modes, migration, stale
 * lock). Exit 1 when something is an error.
 */
export async function run({ values, json, stdout, env }: CommandContext): Promise<number> {
  const fix = values.fix === true;
  const offline = values.offline === true;
  const checks: Check[] = [nodeCheck(), modeCheck(env, fix)];
  const config = configChecks(env, fix);
  checks.push(...config.checks);
  const loaded = config.loaded;
  if (loaded) {
    checks.push(...accessChecks(loaded, env));
    if (offline) checks.push({ name: 'models, channels', status: 'skipped', message: 'not asked (--offline)' });
    else checks.push(...(await modelChecks(loaded)), ...(await channelChecks(loaded)));
    checks.push(await isolationCheck(loaded), logCheck(loaded), ...(await gatewayCheck(loaded, fix)));
  }
  const failed = checks.some((c) => c.status === 'error');
  if (json) print(stdout, JSON.stringify({ ok: !failed, checks }));
  else {
    for (const c of checks) for (const text of line(c)) print(stdout, text);
    const warned = checks.filter((c) => c.status === 'warn').length;
    const errors = checks.filter((c) => c.status === 'error').length;
    const fixHint =
      !fix && checks.some((c) => c.fix?.includes('--fix')) ? ' `tern doctor --fix` applies the safe fixes.' : '';
    print(
      stdout,
      errors + warned === 0
        ? 'Everything looks right.'
        : `${errors} error${errors === 1 ? '' : 's'}, ${warned} warning${warned === 1 ? '' : 's'}.${fixHint}`,
    );
  }
  return failed ? 1 : 0;
}

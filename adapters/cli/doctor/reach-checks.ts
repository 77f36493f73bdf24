import { ReloadableRouter } from '../../../actors/wiring/reloadable-router.js';
import { isSecret, type LoadedConfig } from '../../../store/config/index.js';
import { probeChannel, type ProbeResult } from '../../channels/probe.js';
import { probeSettings } from '../../channels/settings-probe.js';
import { askModel } from '../launcher-host/model-test.js';
import { check, type Check } from './check.js';

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** One short question to each enabled model (`model_name`), with one attempt: a refused key shows, not a failover. */
export async function modelChecks(loaded: LoadedConfig): Promise<Check[]> {
  const names = [...new Set(loaded.config.model_list.filter((m) => m.enabled).map((m) => m.model_name))];
  if (names.length === 0) return [];
  const router = new ReloadableRouter(loaded.config, { maxAttempts: 1 });
  return Promise.all(
    names.map(async (name) => {
      const started = performance.now();
      const answer = await askModel(router, name);
      if (answer.ok) return check(`model ${name}`, 'ok', `answered in ${seconds(started)}`);
      return check(`model ${name}`, 'error', `${answer.code}: ${answer.message}`, {
        fix: 'check api_base, the key (.security.yml) and the model id',
      });
    }),
  );
}

const revealed = (value: unknown): string =>
  isSecret(value) ? value.reveal() : typeof value === 'string' ? value : '';

function settingsCheck(name: string, kind: string, result: ProbeResult | 'skipped'): Check {
  if (result === 'skipped') {
    return check(`channel ${name}`, 'skipped', `a ${kind} bot has one connection: a probe would take the gateway's`);
  }
  const fix = { fix: `check channel_list.${name}.settings (secrets in .security.yml) and the network` };
  return check(`channel ${name}`, result.ok ? 'ok' : 'error', result.detail, result.ok ? {} : fix);
}

/** One authenticated call per enabled channel of a kind this gateway runs (for a Pico server, one to the gateway). */
export async function channelChecks(loaded: LoadedConfig): Promise<Check[]> {
  const probes = Object.entries(loaded.config.channel_list)
    .filter(([, entry]) => entry.enabled)
    .map(async ([name, entry]) => {
      const settings = entry.settings as Record<string, unknown>;
      // A Pico server runs on the gateway's own port: what it answers there, not a platform, says whether it works.
      if ((entry.type ?? name) === 'pico')
        return (await import('./pico-check.js')).picoCheck(name, entry, loaded.config);
      const bySettings = probeSettings(entry.type ?? name, name, entry);
      if (bySettings) return settingsCheck(name, entry.type ?? name, await bySettings);
      // Matrix names its token `access_token` and its server `homeserver` (the peer runtime's fields).
      const token = revealed(settings.token) || revealed(settings.access_token);
      if (token === '') return undefined;
      const probe = probeChannel(entry.type, {
        token,
        appToken: revealed(settings.app_token) || undefined,
        baseUrl: [settings.base_url, settings.homeserver].find((u): u is string => typeof u === 'string'),
        proxy: revealed(settings.proxy) || undefined,
      });
      if (!probe) return check(`channel ${name}`, 'skipped', `a ${entry.type} channel is not probed`);
      const result = await probe;
      return check(
        `channel ${name}`,
        result.ok ? 'ok' : 'error',
        result.detail,
        result.ok ? {} : { fix: `check channel_list.${name}.settings (the token in .security.yml) and the network` },
      );
    });
  return (await Promise.all(probes)).filter((c): c is Check => c !== undefined);
}

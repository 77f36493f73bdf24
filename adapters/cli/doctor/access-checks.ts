import { channelAccess } from '../../../actors/gateway/channel-access.js';
import { WEB_UI_CHANNEL_TYPE, type LoadedConfig } from '../../../store/config/index.js';
import { PairingStore } from '../../../store/pairing.js';
import { check, type Check } from './check.js';

/**
 * Who may talk to each enabled chat channel: `allow_from: ["*"]` (everyone) is a warning; an empty list means pairing
 * (strangers get a code, the owner approves them). The dashboard's chat is the owner's own and is left out.
 */
export function accessChecks(loaded: LoadedConfig, env: NodeJS.ProcessEnv): Check[] {
  const store = PairingStore.of(env);
  const now = Date.now();
  let approved: Array<{ channel: string }> = [];
  let waiting: Array<{ channel: string }> = [];
  try {
    approved = store.approved();
    waiting = store.pending(now);
  } catch (error) {
    return [
      check('pairing', 'error', (error as Error).message, {
        fix: `move ${store.path} away; approved senders must then be approved again`,
      }),
    ];
  }
  return Object.entries(loaded.config.channel_list)
    .filter(([name, entry]) => entry.enabled && (entry.type ?? name) !== WEB_UI_CHANNEL_TYPE)
    .map(([name, entry]) => {
      const access = channelAccess(entry);
      const paired = approved.filter((a) => a.channel === name).length;
      const queue = waiting.filter((r) => r.channel === name).length;
      const counts = `${paired} approved, ${queue} waiting${queue > 0 ? ' (tern pairing list)' : ''}`;
      if (access.kind === 'open') {
        return check(
          `access ${name}`,
          'warn',
          'open to everyone (allow_from: ["*"]): whoever finds the bot runs the agent\'s tools and spends your tokens',
          {
            fix:
              `list the senders you know in channel_list.${name}.settings.allow_from, ` +
              `or leave it empty: strangers then get a pairing code`,
          },
        );
      }
      if (access.kind === 'listed')
        return check(`access ${name}`, 'ok', `${access.count} listed in allow_from; ${counts} by pairing`);
      return check(`access ${name}`, 'ok', `only senders you approve (allow_from is empty): ${counts}`);
    });
}

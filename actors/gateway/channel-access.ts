import { EVERYONE } from '../../adapters/channels/trigger.js';
import type { ChannelEntry } from '../../store/config/index.js';

/** How a channel entry lets senders in, for the start's log lines and `tern doctor`. */
export type ChannelAccess =
  | { kind: 'open' }
  | { kind: 'listed'; count: number }
  /** `allow_from` is empty: only senders the owner approves with a pairing code. */
  | { kind: 'pairing' };

export function channelAccess(entry: ChannelEntry): ChannelAccess {
  const allowFrom = entry.settings.allow_from.filter((e) => e.trim() !== '');
  if (allowFrom.some((e) => e.trim() === EVERYONE)) return { kind: 'open' };
  return allowFrom.length === 0 ? { kind: 'pairing' } : { kind: 'listed', count: allowFrom.length };
}

/** The one line a gateway logs at start about a channel that is open to everyone, or closed with pairing. */
export function accessNotice(name: string, access: ChannelAccess): { level: 'warn'; text: string } | undefined {
  if (access.kind === 'open') {
    return {
      level: 'warn',
      text:
        `channel ${name} is open to everyone (allow_from: ["*"]): whoever finds the ` +
        `bot runs the agent's tools in your workspace and spends your tokens`,
    };
  }
  if (access.kind === 'pairing') {
    return {
      level: 'warn',
      text:
        `channel ${name} has an empty allow_from, so only senders you approve ` +
        `may talk to it: a stranger gets a pairing code and no answer; ` +
        `approve one with "tern pairing approve CODE", or list yourself in channel_list.${name}.settings.allow_from`,
    };
  }
  return undefined;
}

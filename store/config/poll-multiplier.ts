import type { Config } from './schema/index.js';

/**
 * How much `power.low_power` stretches maintenance pauses at the least: the spec's example multiplier. A board on a
 * battery then checks the config file every 10 s, Telegram's long poll for a stall after 50 s, media every 150 min.
 */
export const LOW_POWER_POLL_MULTIPLIER = 5;

/**
 * The factor every maintenance pause is multiplied by: `power.poll_interval_multiplier`, and with `power.low_power`
 * at least `LOW_POWER_POLL_MULTIPLIER`. Tern's loop blocks on events, so maintenance timers are all low power has
 * left to stretch besides the heartbeat.
 */
export function pollMultiplier(power: Pick<Config['power'], 'low_power' | 'poll_interval_multiplier'>): number {
  return power.low_power
    ? Math.max(power.poll_interval_multiplier, LOW_POWER_POLL_MULTIPLIER)
    : power.poll_interval_multiplier;
}

import type { PairingDesk } from '../pairing-desk.js';
import type { Scheduler } from '../scheduler.js';

/** As often as the config file is looked at: `tern pairing` decisions reach a running gateway within it. */
export const PAIRING_POLL_MS = 2_000;

/**
 * The gateway's look at the pairing file for decisions `tern pairing` queued there (this gateway holds the event
 * log), every `PAIRING_POLL_MS` × `multiplier()`, first at once: each becomes a `pairing.decision.requested` its desk
 * answers, and approved senders are told. Until the CLI reaches the gateway over its control socket, this file is the
 * way in, as the skill drafts' decisions have theirs.
 */
export function followPairing(
  desk: PairingDesk,
  scheduler: Scheduler,
  multiplier: () => number,
  onError: (error: unknown) => void,
): { stop(): void } {
  let timer: { cancel(): void } | undefined;
  let stopped = false;
  const look = (): void => {
    try {
      desk.takeQueued();
    } catch (error) {
      onError(error);
    }
    if (!stopped) timer = scheduler.after(PAIRING_POLL_MS * multiplier(), look);
  };
  look();
  return {
    stop: () => {
      stopped = true;
      timer?.cancel();
    },
  };
}

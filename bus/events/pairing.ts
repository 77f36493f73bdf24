import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** Approve lets the sender in for good; deny drops the request. */
export const pairingDecisionSchema = lazySchema(() => z.enum(['approve', 'deny']));

/**
 * Pairing: a channel whose `allow_from` does not list a sender gives them no turn; in a direct chat they get a
 * one-time code, and the owner lets them in (or not) with `tern pairing approve|deny CODE`.
 */
export const pairingEvents = {
  /** A stranger wrote to a closed channel and was sent `code` (valid until `expires_at`, an ISO time). */
  'pairing.requested': lazySchema(() =>
    z.object({
      channel: z.string(),
      account: z.string(),
      sender: z.string(),
      sender_aliases: z.array(z.string()).default([]),
      chat: z.string(),
      code: z.string(),
      expires_at: z.string(),
    }),
  ),
  /**
   * The owner's decision on a code, for whoever holds the pairing desk (the gateway, or the CLI when no gateway runs):
   * answered by `pairing.decided` or `pairing.decision.failed` with the same `request`. `by` says where it came from
   * (`cli`, `dashboard`).
   */
  'pairing.decision.requested': lazySchema(() =>
    z.object({ request: z.string(), code: z.string(), decision: pairingDecisionSchema(), by: z.string() }),
  ),
  /** A pending request was approved (the sender may talk to the channel from now on) or denied. */
  'pairing.decided': lazySchema(() =>
    z.object({
      request: z.string(),
      code: z.string(),
      channel: z.string(),
      sender: z.string(),
      decision: pairingDecisionSchema(),
      by: z.string(),
    }),
  ),
  /** A decision on a code that is not pending: never issued, already decided, or expired. */
  'pairing.decision.failed': lazySchema(() =>
    z.object({
      request: z.string(),
      code: z.string(),
      decision: pairingDecisionSchema(),
      reason: z.enum(['unknown', 'expired']),
      by: z.string(),
    }),
  ),
} as const;

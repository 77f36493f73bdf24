import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/**
 * What a lease is for: a session's mailbox (`session`), a channel account's connection (`channel`), or the cluster's
 * heartbeat and cron (`schedule`, one lease for the whole cluster).
 */
export const leaseKindSchema = lazySchema(() => z.enum(['session', 'channel', 'schedule']));
export type LeaseKind = z.infer<ReturnType<typeof leaseKindSchema>>;

/** Membership and ownership in a cluster of gateways (#27); every event names the gateway it is about. */
export const clusterEvents = {
  /** A gateway joined: it announces itself once its membership entry is written. */
  'cluster.member.joined': lazySchema(() =>
    z.object({ gateway: z.string().min(1), pid: z.number().int(), host: z.string() }),
  ),
  /**
   * A gateway left: `stopped` when it said so on its way out, `expired` when it stopped heartbeating and another
   * member noticed (the first live member by id announces it, so it is announced once).
   */
  'cluster.member.left': lazySchema(() =>
    z.object({ gateway: z.string().min(1), reason: z.enum(['stopped', 'expired']), by: z.string().min(1) }),
  ),
  /** A gateway took a lease: from nobody, or from a holder that stopped heartbeating (`from`). */
  'cluster.lease.acquired': lazySchema(() =>
    z.object({
      gateway: z.string().min(1),
      kind: leaseKindSchema(),
      id: z.string().min(1),
      from: z.string().optional(),
    }),
  ),
  /** A gateway no longer holds a lease: it let it go, or found another gateway holding it at a heartbeat. */
  'cluster.lease.released': lazySchema(() =>
    z.object({
      gateway: z.string().min(1),
      kind: leaseKindSchema(),
      id: z.string().min(1),
      reason: z.enum(['released', 'lost']),
    }),
  ),
} as const;

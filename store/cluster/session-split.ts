import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LeaseRecord } from './leases.js';
import type { StreamRow } from './streams-info.js';
import { streamOwner } from './stream-names.js';
import { subjectCounts } from './subject-counts.js';
import { typeToken } from './subjects.js';

/** How many sessions of one channel account a member serves (`cluster.session_partitions`, #40). */
export interface SessionShare {
  account: string;
  gateway: string;
  partitions: number;
  sessions: number;
}

/**
 * Which member serves how many sessions of each account, sorted by account and member: a partition's sessions are
 * those its stream has routed a message to (one subject per session, counted by the server), and the partition's
 * lease names its member. A partition no member holds now is left out.
 */
export async function sessionSplit(
  nc: NatsConnection,
  streams: StreamRow[],
  leases: LeaseRecord[],
): Promise<SessionShare[]> {
  const jsm = await jetstreamManager(nc, { checkAPI: false });
  const shares = new Map<string, SessionShare>();
  for (const { stream } of streams) {
    const owner = streamOwner(stream);
    if (owner?.kind !== 'sessions') continue;
    const lease = leases.find((l) => l.kind === 'session' && l.id === `${owner.name}/${owner.partition}`);
    if (!lease) continue;
    const counts = await subjectCounts(jsm, stream, `${owner.subjectRoot}.${typeToken('message.routed')}.>`);
    const key = `${owner.name}\u0000${lease.gateway}`;
    const share = shares.get(key) ?? { account: owner.name, gateway: lease.gateway, partitions: 0, sessions: 0 };
    share.partitions += 1;
    share.sessions += Object.keys(counts).length;
    shares.set(key, share);
  }
  return [...shares.values()].sort((a, b) => a.account.localeCompare(b.account) || a.gateway.localeCompare(b.gateway));
}

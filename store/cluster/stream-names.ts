/**
 * The event streams of a cluster (#27). One writer per stream (the `JetStreamEventStore` fence), so each writer has its
 * own: a member's own stream, and one per channel account, written by whichever member holds the account's lease.
 * A stream name takes `[A-Za-z0-9_-]`; a subject token takes no `.`: other characters are written `_`.
 */
const safe = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, '_');

export interface StreamName {
  stream: string;
  subjectRoot: string;
}

/** The stream of a channel account: its inbound, routing, sessions, turns and replies. */
export function accountLog(channel: string): StreamName {
  return { stream: `TERN_CH_${safe(channel)}`, subjectRoot: `tern.ch.${safe(channel)}` };
}

/** A member's own stream: its start and stop, heartbeat, cron, membership and lease events. */
export function memberLog(gateway: string): StreamName {
  return { stream: `TERN_GW_${safe(gateway)}`, subjectRoot: `tern.gw.${safe(gateway)}` };
}

/**
 * The stream of one partition of a channel account's sessions (#40, `cluster.session_partitions`): the sessions whose
 * key hashes to `partition`, their turns and replies, written by the member holding the partition's lease.
 */
export function sessionsLog(channel: string, partition: number): StreamName {
  return { stream: `TERN_SS_${partition}_${safe(channel)}`, subjectRoot: `tern.ss.${safe(channel)}.${partition}` };
}

/** Every stream of the cluster's log has one of these prefixes. */
export const STREAM_PREFIXES = ['TERN_CH_', 'TERN_GW_', 'TERN_SS_'] as const;

/**
 * What a cluster event stream is for: a channel account's (`TERN_CH_tg1`), a member's own (`TERN_GW_node-a`) or a
 * partition of an account's sessions (`TERN_SS_3_tg1`, named by its account).
 */
export function streamOwner(
  stream: string,
): { kind: 'account' | 'member' | 'sessions'; name: string; subjectRoot: string; partition?: number } | undefined {
  const sessions = /^TERN_SS_(\d+)_(.+)$/.exec(stream);
  if (sessions) {
    const [, partition, name] = sessions as unknown as [string, string, string];
    return { kind: 'sessions', name, subjectRoot: `tern.ss.${name}.${partition}`, partition: Number(partition) };
  }
  if (stream.startsWith('TERN_CH_'))
    return {
      kind: 'account',
      name: stream.slice('TERN_CH_'.length),
      subjectRoot: `tern.ch.${stream.slice('TERN_CH_'.length)}`,
    };
  if (stream.startsWith('TERN_GW_'))
    return {
      kind: 'member',
      name: stream.slice('TERN_GW_'.length),
      subjectRoot: `tern.gw.${stream.slice('TERN_GW_'.length)}`,
    };
  return undefined;
}

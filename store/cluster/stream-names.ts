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

/** Every stream of the cluster's log has one of these prefixes. */
export const STREAM_PREFIXES = ['TERN_CH_', 'TERN_GW_'] as const;

/** What a cluster event stream is for: a channel account's (`TERN_CH_tg1`) or a member's own (`TERN_GW_node-a`). */
export function streamOwner(
  stream: string,
): { kind: 'account' | 'member'; name: string; subjectRoot: string } | undefined {
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

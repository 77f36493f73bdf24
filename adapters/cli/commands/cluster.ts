import { STREAM_PREFIXES, streamOwner } from '../../../store/cluster/stream-names.js';
import { clusterSettings } from '../../../actors/cluster/settings.js';
import { sessionSplit } from '../../../store/cluster/session-split.js';
import { queuedTexts } from '../../../store/cluster/delivery-queue.js';
import { listLeases, type LeaseRecord } from '../../../store/cluster/leases.js';
import { listMembers } from '../../../store/cluster/members.js';
import { listEventStreams, unanswered } from '../../../store/cluster/streams-info.js';
import { connectForCli } from '../cluster-read.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError } from '../errors.js';
import { loadConfigForCli } from '../load-config.js';

/** How long ago, never below 0: the times are the server's, which runs ahead of this clock by a little or more. */
const ago = (now: number, at: number): string => (at === 0 ? '-' : `${(Math.max(0, now - at) / 1000).toFixed(1)}s ago`);

/**
 * `tern cluster status`: the members (and how long since each renewed its entry), the leases (which member runs
 * which channel account, which runs the heartbeat and cron), and each event stream's size, last write and, for a
 * channel account, its lag (messages accepted and not answered yet), and the texts relayed to each channel account
 * that wait for its member to take them (stuck while no member runs it), read straight from JetStream.
 */
export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  if (sub !== 'status') throw subcommandError('cluster', sub, ['status']);
  const loaded = loadConfigForCli(context.env);
  const settings = clusterSettings(loaded, { url: context.values.cluster });
  if (!settings)
    throw new CliError(
      'cluster_not_configured',
      'no cluster configured',
      'neither --cluster nor cluster.url names a NATS server',
      'Pass --cluster nats://HOST:PORT or set cluster.url in config.json.',
    );
  const nc = await connectForCli(settings, 'cluster-status');
  try {
    const [members, leases, rows, queued] = await Promise.all([
      listMembers(nc),
      listLeases(nc),
      listEventStreams(nc, STREAM_PREFIXES),
      queuedTexts(nc),
    ]);
    const streams = await Promise.all(
      rows.map(async (row) => {
        const owner = streamOwner(row.stream);
        return {
          ...row,
          ...(owner?.kind === 'account' ? { unanswered: await unanswered(nc, row.stream, owner.subjectRoot) } : {}),
        };
      }),
    );
    const sessions = await sessionSplit(nc, rows, leases);
    const now = Date.now();
    if (context.json) {
      const status = { ok: true, url: settings.url, members, leases, streams, queued, sessions };
      print(context.stdout, JSON.stringify(status));
      return 0;
    }
    const named = (l: LeaseRecord): string => (l.kind === 'schedule' ? 'the heartbeat and cron' : l.id);
    print(context.stdout, `cluster ${settings.url}: ${members.length} member(s)`);
    for (const m of members) {
      const runs =
        leases
          .filter((l) => l.gateway === m.gateway)
          .map(named)
          .join(', ') || 'nothing';
      print(context.stdout, `  ${m.gateway}  pid ${m.pid} on ${m.host}, seen ${ago(now, m.seenAt)}, runs ${runs}`);
    }
    print(context.stdout, 'leases:');
    if (leases.length === 0) print(context.stdout, '  none');
    for (const l of leases)
      print(context.stdout, `  ${l.kind} ${l.id}  held by ${l.gateway}, renewed ${ago(now, l.renewedAt)}`);
    print(context.stdout, 'streams (lag: messages accepted and not answered yet):');
    if (streams.length === 0) print(context.stdout, '  none');
    for (const s of streams) {
      const owner = streamOwner(s.stream);
      const what =
        owner?.kind === 'account'
          ? `channel account ${owner.name}`
          : owner?.kind === 'sessions'
            ? `sessions ${owner.partition} of ${owner.name}`
            : `member ${owner?.name ?? '?'}`;
      const lag = s.unanswered === undefined ? '' : `, lag ${s.unanswered}`;
      print(context.stdout, `  ${s.stream}  ${what}: ${s.events} events, last write ${ago(now, s.lastAt)}${lag}`);
    }
    for (const account of [...new Set(sessions.map((s) => s.account))]) {
      const split = sessions
        .filter((s) => s.account === account)
        .map((s) => `${s.gateway} serves ${s.sessions} in ${s.partitions} partition(s)`);
      print(context.stdout, `sessions of ${account}: ${split.join(', ')}`);
    }
    for (const q of queued) {
      const held = leases.some((l) => l.kind === 'channel' && l.id === q.account);
      const why = held ? 'relayed, not yet taken by the member running it' : `no member runs ${q.account} now`;
      print(context.stdout, `texts waiting for ${q.account}: ${q.texts} (${why})`);
    }
    return 0;
  } finally {
    await nc.close();
  }
}

import { EventLog } from '../../../store/log/event-log.js';
import { follow } from '../../../store/log/follow.js';
import {
  foldLiveActors,
  LIVE_ACTOR_TYPES,
  readLiveActors,
  type LiveActor,
  type LiveActors,
} from '../../../store/log/live-actors.js';
import {
  CLUSTER_ACTOR_TYPES,
  foldClusterActors,
  liveStreams,
  readClusterActors,
  type ClusterActors,
  type StreamActors,
} from '../../../store/log/cluster-actors.js';
import type { EventStore } from '../../../store/log/event-store.js';
import { logDir } from '../../../store/paths.js';
import { openClusterRead } from '../cluster-read.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { loadConfigForCli } from '../load-config.js';

/** The live actor a row hangs under: its parent, or for a subagent whose turn has ended, that turn's session. */
function liveParent(row: LiveActor, actors: LiveActors): string | undefined {
  if (row.parent && actors.has(row.parent)) return row.parent;
  const session = row.machine === 'subagent' && row.session ? `session:${row.session}` : undefined;
  return session && actors.has(session) ? session : undefined;
}

/** Live actors as a tree: each under the actor it hangs from (a subagent under the turn that started it), by id. */
function render(actors: LiveActors, now: number): string[] {
  if (actors.size === 0) return ['no live actors'];
  const rows = [...actors.values()].sort((a, b) => a.actor.localeCompare(b.actor));
  const under = new Map<string, LiveActor[]>();
  for (const row of rows) {
    const parent = liveParent(row, actors);
    if (parent) under.set(parent, [...(under.get(parent) ?? []), row]);
  }
  const ordered: Array<{ row: LiveActor; depth: number }> = [];
  const visit = (row: LiveActor, depth: number): void => {
    ordered.push({ row, depth });
    for (const child of under.get(row.actor) ?? []) visit(child, depth + 1);
  };
  for (const row of rows) if (!liveParent(row, actors)) visit(row, 0);
  const name = ({ row, depth }: { row: LiveActor; depth: number }): string => `${'  '.repeat(depth)}${row.actor}`;
  const width = Math.max(...ordered.map((o) => name(o).length)) + 2;
  return ordered.map(
    (o) =>
      `${name(o).padEnd(width)}${o.row.machine.padEnd(16)}${o.row.state.padEnd(28)}` +
      `${o.row.event.padEnd(44)}${Math.round((now - o.row.since) / 1000)} s`,
  );
}

function output(actors: LiveActors, json: boolean, stdout: CommandContext['stdout']): void {
  if (json) print(stdout, JSON.stringify({ ok: true, actors: [...actors.values()] }));
  else render(actors, Date.now()).forEach((line) => print(stdout, line));
}

/** A stream of the cluster as a person names it: the channel account it runs, or the member's own. */
function streamLabel(stream: string): string {
  if (stream.startsWith('TERN_CH_')) return `channel account ${stream.slice('TERN_CH_'.length)} (${stream})`;
  if (stream.startsWith('TERN_GW_')) return `member's own (${stream})`;
  return stream;
}

/** Every gateway's live actors: a heading per stream (gateway, what it runs), its actors as a tree under it. */
function outputCluster(streams: ClusterActors, json: boolean, stdout: CommandContext['stdout']): void {
  const live: StreamActors[] = liveStreams(streams);
  if (json) {
    const actors = live.flatMap((s) =>
      [...s.actors.values()].map((a) => ({ ...a, ...(s.gateway ? { gateway: s.gateway } : {}), stream: s.stream })),
    );
    return print(stdout, JSON.stringify({ ok: true, actors }));
  }
  if (live.length === 0) return print(stdout, 'no live actors');
  const now = Date.now();
  live.forEach((s, i) => {
    if (i > 0) print(stdout, '');
    print(stdout, `${s.gateway ?? '?'}  ${streamLabel(s.stream)}`);
    render(s.actors, now).forEach((line) => print(stdout, `  ${line}`));
  });
}

/** With `--cluster` (or `cluster.url`): every gateway's actors from the cluster log. */
async function inspectCluster(log: EventStore, { values, json, stdout, signal }: CommandContext): Promise<number> {
  const streams = readClusterActors(log);
  outputCluster(streams, json, stdout);
  if (!values.watch) return 0;
  for await (const event of follow(log, { type: CLUSTER_ACTOR_TYPES, after: log.lastCommittedSeq() }, { signal })) {
    foldClusterActors(streams, event);
    if (!json) print(stdout, '');
    outputCluster(streams, json, stdout);
  }
  return 0;
}

export async function run(context: CommandContext): Promise<number> {
  const { values, json, stdout, env, signal } = context;
  const loaded = loadConfigForCli(env);
  const cluster = await openClusterRead(context, 'inspect', loaded);
  if (cluster) {
    try {
      return await inspectCluster(cluster.log, context);
    } finally {
      await cluster.close();
    }
  }
  const dir = logDir(loaded.workspace);
  const log = values.watch ? await EventLog.openWhenReady(dir, signal) : tryOpen(dir);
  if (!log) {
    output(new Map(), json, stdout);
    return 0;
  }
  try {
    const actors = readLiveActors(log);
    output(actors, json, stdout);
    if (!values.watch) return 0;
    for await (const event of follow(log, { type: LIVE_ACTOR_TYPES, after: log.lastCommittedSeq() }, { signal })) {
      foldLiveActors(actors, event);
      if (!json) print(stdout, '');
      output(actors, json, stdout);
    }
    return 0;
  } finally {
    log.close();
  }
}

function tryOpen(dir: string): EventLog | undefined {
  try {
    return EventLog.open(dir, { readOnly: true });
  } catch {
    return undefined;
  }
}

import { EventLog } from '../../../store/log/event-log.js';
import { follow } from '../../../store/log/follow.js';
import { foldLiveActors, LIVE_ACTOR_TYPES, readLiveActors, type LiveActors } from '../../../store/log/live-actors.js';
import { logDir } from '../../../store/paths.js';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';
import { loadConfigForCli } from '../load-config.js';

function render(actors: LiveActors, now: number): string[] {
  if (actors.size === 0) return ['no live actors'];
  const rows = [...actors.values()].sort((a, b) => a.actor.localeCompare(b.actor));
  const width = Math.max(...rows.map((r) => r.actor.length)) + 2;
  return rows.map((r) => `${r.actor.padEnd(width)}${r.machine.padEnd(16)}${r.state.padEnd(28)}${r.event.padEnd(44)}${Math.round((now - r.since) / 1000)} s`);
}

function output(actors: LiveActors, json: boolean, stdout: CommandContext['stdout']): void {
  if (json) print(stdout, JSON.stringify({ ok: true, actors: [...actors.values()] }));
  else render(actors, Date.now()).forEach((line) => print(stdout, line));
}

export async function run({ values, json, stdout, env, signal }: CommandContext): Promise<number> {
  const dir = logDir(loadConfigForCli(env).workspace);
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

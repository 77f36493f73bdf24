// A config given as a pipe (`AGENT_CONFIG=/dev/stdin`, or a shell's `AGENT_CONFIG=<(…)`) can be read once: a command
// that reads the log takes its workspace, its cluster and its retention from that one read.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateDraft, type EventDraft } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { logDir } from '../../store/paths.js';
import { repoRoot, ternEntry, type CliResult } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';

/** `printf %s CONFIG | AGENT_CONFIG=/dev/stdin tern ARGS`: a shell's pipe, which (unlike a socket) /dev/stdin opens. */
function withPipedConfig(args: string[], env: NodeJS.ProcessEnv, config: string): CliResult {
  const script = 'printf %s "$TERN_CONFIG" | "$0" "$@"';
  const result = spawnSync('sh', ['-c', script, process.execPath, ...ternEntry, ...args], {
    cwd: repoRoot,
    env: { ...env, AGENT_CONFIG: '/dev/stdin', TERN_CONFIG: config },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

test(
  'tern log, inspect and log compact read a config given on stdin once, ' + 'and work on the workspace it names',
  async () => {
    const home = tempHome();
    try {
      const workspace = join(home.home, 'elsewhere');
      const log = EventLog.open(logDir(workspace));
      const drafts: EventDraft[] = [
        { type: 'runtime.started', data: { pid: 7, command: 'gateway' } },
        {
          type: 'actor.transitioned',
          agent: 'main',
          turn: 't_1',
          data: { actor: 'turn:t_1', machine: 'turn', to: 'calling_model', event: 'xstate.init' },
        },
      ];
      drafts.forEach((d) => log.append(validateDraft(d)));
      await log.flushed();
      // Closed before the synchronous runs below block this process: until lmdb has closed it here, `tern` waits.
      await log.close();
      const config = JSON.stringify({ version: 2, agents: { defaults: { workspace } } });

      const read = withPipedConfig(['log', '--json', '--type', 'runtime.*'], home.env, config);
      const events = read.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; data: unknown });
      assert.equal(
        [read.code, events.map((e) => [e.type, e.data])],
        [0, [['runtime.started', { pid: 7, command: 'gateway' }]]],
        read.stderr,
      );

      const inspected = withPipedConfig(['inspect', '--json'], home.env, config);
      assert.is(inspected.code, 0, inspected.stdout + inspected.stderr);
      const { actors } = JSON.parse(inspected.stdout) as { actors: Array<{ actor: string; state: string }> };
      assert.equal(
        actors.map((a) => [a.actor, a.state]),
        [['turn:t_1', 'calling_model']],
      );

      const compacted = withPipedConfig(['log', 'compact', '--json'], home.env, config);
      assert.is(compacted.code, 0, compacted.stdout + compacted.stderr);
      assert.equal(JSON.parse(compacted.stdout), { ok: true, kept: 2, archived: 0, removed: 0 });
    } finally {
      home.remove();
    }
  },
);

test.run();

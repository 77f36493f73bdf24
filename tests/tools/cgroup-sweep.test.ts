// Two Tern processes on one machine (a gateway and `tern agent`): each sweeps the command cgroups a crashed process
// left behind when it first runs a command. One made by a live process, still empty because its command is about to
// be moved in, must survive the other's sweep: removing it made that move fail with ENODEV.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CommandCgroup, cgroupsUsable } from '../../adapters/tools/exec/sandbox-cgroup.js';
import { repoRoot } from '../support/cli.js';

const SWEEP = "import('./adapters/tools/exec/sandbox-cgroup.ts').then((m) => console.log(m.cgroupsUsable()))";

const title = "a command cgroup another live process just made survives this process's sweep, and its command joins";
if (!cgroupsUsable()) test.skip(`${title} [skipped: no cgroups can be made here]`, () => undefined);
else {
  test(title, async () => {
    const cgroup = CommandCgroup.create({ processes: 64, memoryBytes: 256 * 1024 * 1024 });
    assert.ok(cgroup, 'a cgroup was made');
    // The command: a process of its own, so this worker never ends up inside the cgroup's limits.
    const command = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const other = spawnSync(process.execPath, ['--import', 'tsx', '-e', SWEEP], { cwd: repoRoot, encoding: 'utf8' });
      assert.is(other.stdout.trim(), 'true', other.stderr);
      await cgroup!.join(command.pid!);
      assert.ok(cgroup!.holds(command.pid!), 'the command is in the cgroup after the other process swept');
    } finally {
      command.kill('SIGKILL');
      await once(command, 'exit');
      cgroup?.remove();
    }
  });
}

test.run();

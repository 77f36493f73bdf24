import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventLog } from '../../store/log/event-log.js';
import { CommandLauncher } from '../../adapters/tools/exec/launch.js';
import { runCommand } from '../../adapters/tools/exec/run-command.js';
import { DEFAULT_EXEC, type ExecOptions } from '../../adapters/tools/options.js';
import { Sandbox } from '../../adapters/tools/sandbox/sandbox.js';
import {
  execAttacks,
  fingerprint,
  harmOf,
  killTagged,
  layExecTraps,
  sandboxAttacks,
  ESCAPED,
  setIdFilesIn,
  SHADOW_LINE,
  STRAY_TAG,
  trapsAsLaid,
  type ExecTraps,
  type GuardOutcome,
  type SandboxAttack,
} from '../support/exec-attacks.js';
import { toolsFixture, type ToolsFixture } from '../support/tools-fixture.js';

/** `laid`: the traps as `trapsAsLaid` read them just after they were last laid. */
type Run = { fixture: ToolsFixture; traps: ExecTraps; laid: string };

function start(exec: Partial<ExecOptions>): Run {
  const fixture = toolsFixture(() => ({ exec }));
  const traps = layExecTraps(fixture.root, fixture.workspace, fixture.home, fixture.userHome);
  return { fixture, traps, laid: trapsAsLaid(traps) };
}

/**
 * Lays the traps again where the last attack changed any of them. Most attacks change nothing, and laying every trap
 * again after each of the ~470 runs was a fifth of the file's time.
 */
function relay(run: Run): void {
  if (trapsAsLaid(run.traps) === run.laid) return;
  run.traps = layExecTraps(run.fixture.root, run.fixture.workspace, run.fixture.home, run.fixture.userHome);
  run.laid = trapsAsLaid(run.traps);
}

/** Runs `attack` and reports what it did; the traps are laid again afterwards, whatever the attack changed. */
async function attempt(
  run: Run,
  command: string,
  execute: (command: string) => Promise<{ content: string }>,
): Promise<{ outcome: GuardOutcome; harm: string[]; output: string }> {
  const before = fingerprint(run.traps);
  const { content } = await execute(command);
  const harm = await harmOf(run.traps, before, content);
  killTagged(STRAY_TAG);
  relay(run);
  const outcome = content.startsWith('Command blocked by safety guard')
    ? 'refused'
    : harm.length > 0
      ? 'escapes'
      : 'contained';
  return { outcome, harm, output: content };
}

const isolated = suite<Run>('attack corpus: exec inside bubblewrap');
isolated.before((context) => {
  Object.assign(context, start({ isolation: 'bwrap' }));
});
isolated.after(({ fixture }) => fixture.close());

isolated('53 escapes through the real tool path (guard, then sandbox): none gets out', async (run) => {
  const attacks = execAttacks(run.traps);
  assert.ok(attacks.length >= 40);
  const reachedSandbox: string[] = [];
  for (const attack of attacks) {
    const { outcome, harm } = await attempt(run, attack.command, (command) =>
      run.fixture.call('exec', { command, timeout_seconds: 5 }),
    );
    assert.equal(harm, [], `${attack.group}: ${attack.command}`);
    if (outcome === 'contained') reachedSandbox.push(attack.command);
  }
  // The attacks the guard cannot judge (computed paths, interpreters, hard links, history, a `cd -` it cannot
  // follow) are the sandbox's to stop.
  assert.is(reachedSandbox.length, 24, reachedSandbox.join('\n'));
});

isolated('the sandbox alone holds: every attack that is safe to run, with no guard in front', async (run) => {
  const sandbox = new Sandbox(run.fixture.policy);
  const launcher = new CommandLauncher(sandbox, { ...DEFAULT_EXEC, isolation: 'bwrap' });
  const direct = async (command: string) =>
    runCommand(await launcher.launch(command, sandbox.workspace), 5000, 65536, new AbortController().signal);
  for (const attack of execAttacks(run.traps).filter((a) => !a.guardOnly)) {
    const { harm, output } = await attempt(run, attack.command, (command) =>
      direct(command).then((outcome) => ({ content: outcome.output })),
    );
    assert.equal(harm, [], `${attack.group}: ${attack.command}\n${output}`);
  }
});

isolated(
  'inside, the home is empty, protected files read as nothing, history is read-only and the system is read-only',
  async (run) => {
    const sandbox = new Sandbox(run.fixture.policy);
    const launcher = new CommandLauncher(sandbox, { ...DEFAULT_EXEC, isolation: 'bwrap' });
    const cases: [command: string, output: string][] = [
      ['cd && ls -A | wc -l', '0\n'],
      [
        'cat .env envlink .ssh/id_rsa 2>&1; ls -A .ssh | wc -l',
        'cat: .env: Permission denied\ncat: envlink: Permission denied\n' +
          'cat: .ssh/id_rsa: No such file or directory\n0\n',
      ],
      [
        'exec 2>&1; echo x > sessions/log.txt || echo refused',
        `sh: 1: cannot create sessions/log.txt: Read-only file system\nrefused\n`,
      ],
      [
        'touch /etc/tern-test 2>&1 || echo refused',
        "touch: cannot touch '/etc/tern-test': Read-only file system\nrefused\n",
      ],
      [
        'ln .env again 2>&1 || echo refused',
        "ln: failed to create hard link 'again' => '.env': Invalid cross-device link\nrefused\n",
      ],
      ['echo $HOME', `${run.fixture.userHome}\n`],
      // Only the folders on the way to the workspace exist: nothing beside it, nothing of AGENT_HOME but the workspace.
      [
        `ls -A ${run.fixture.root} ${run.fixture.home}`,
        `${run.fixture.root}:\nagent-home\nuser\n\n${run.fixture.home}:\nworkspace\n`,
      ],
      // One process at a time besides the shell: the pipeline `ps | sort` could list a fork before its exec (`sh`).
      ['echo $(ps -e -o comm=)', 'bwrap sh ps\n'],
    ];
    for (const [command, output] of cases) {
      const outcome = await runCommand(
        await launcher.launch(command, sandbox.workspace),
        5000,
        65536,
        new AbortController().signal,
      );
      assert.equal(outcome, { kind: 'exited', code: 0, output, truncated: false }, command);
    }
  },
);
isolated.run();

const LOOPBACK_SECRET = 'LOOPBACK-SERVICE-SECRET';
/** Cases per exec call: each runs in a subshell of its own after a marker line, so output is told apart. */
const BATCH = 25;

function script(cases: Array<{ index: number; attack: SandboxAttack }>): string {
  return cases.map(({ index, attack }) => `echo "@@${index}"; ( ${attack.command}\n) < /dev/null 2>&1`).join('\n');
}

/** The case whose output holds `needle`, from the `@@n` marker before it. */
function caseOf(output: string, needle: string | RegExp): string {
  const at = typeof needle === 'string' ? output.indexOf(needle) : output.search(needle);
  return /@@(\d+)\n(?![\s\S]*@@\d+\n)/.exec(output.slice(0, at))?.[1] ?? '?';
}

type Corpus = Run & { loopback: Server; log: EventLog; logDir: string };

const corpus = suite<Corpus>('attack corpus: 300+ attacks straight inside bubblewrap (no guard in front)');
corpus.before(async (context) => {
  // A file limit that stops `head -c 2G` early keeps the run short; the processes and memory limits are the defaults.
  Object.assign(
    context,
    start({ isolation: 'bwrap', limits: { processes: 256, memoryBytes: 1024 ** 3, fileSizeBytes: 16 * 1024 ** 2 } }),
  );
  context.loopback = createServer((_req, res) => res.end(LOOPBACK_SECRET));
  await new Promise<void>((resolve) => context.loopback.listen(0, '127.0.0.1', resolve));
  // The event log open in this process, as in a gateway: lmdb holds data.mdb without close-on-exec.
  // Apart from the traps, whose every file is compared: lmdb rewrites its lock file as it likes.
  context.logDir = mkdtempSync(join(tmpdir(), 'tern-log-'));
  context.log = EventLog.open(context.logDir);
});
corpus.after(async ({ fixture, loopback, log, logDir }) => {
  await log.close();
  rmSync(logDir, { recursive: true, force: true });
  await new Promise<void>((resolve) => loopback.close(() => resolve()));
  fixture.close();
});

corpus(
  'none gets out: no secret, no change outside, no process left, no setuid file, no host loopback',
  async (run) => {
    const url = `http://127.0.0.1:${(run.loopback.address() as AddressInfo).port}/`;
    const attacks = sandboxAttacks(run.traps, url);
    assert.ok(attacks.length >= 300, `${attacks.length} attacks`);
    const sandbox = new Sandbox(run.fixture.policy);
    const launcher = new CommandLauncher(sandbox, {
      ...DEFAULT_EXEC,
      isolation: 'bwrap',
      limits: { processes: 256, memoryBytes: 1024 ** 3, fileSizeBytes: 16 * 1024 ** 2 },
    });
    const digest = () =>
      createHash('sha256')
        .update(readFileSync(join(run.logDir, 'data.mdb')))
        .digest('hex');
    const log = digest();
    const indexed = attacks.map((attack, index) => ({ index, attack }));
    // What exhausts a limit runs alone, so the cases after it are not judged in a sandbox it filled.
    const alone = indexed.filter(({ attack }) => attack.group === 'processes');
    const batches = [
      ...Array.from({ length: Math.ceil((indexed.length - alone.length) / BATCH) }, (_, i) =>
        indexed.filter(({ attack }) => attack.group !== 'processes').slice(i * BATCH, (i + 1) * BATCH),
      ),
      ...alone.map((one) => [one]),
    ];
    const harms: string[] = [];
    for (const batch of batches) {
      const before = fingerprint(run.traps);
      const outcome = await runCommand(
        await launcher.launch(script(batch), sandbox.workspace),
        30_000,
        4 * 1024 * 1024,
        new AbortController().signal,
      );
      const output = outcome.output;
      const harm = await harmOf(run.traps, before, output);
      for (const secret of [...run.traps.secrets, LOOPBACK_SECRET])
        if (output.includes(secret)) harm.push(`case ${caseOf(output, secret)} leaked ${secret}`);
      if (ESCAPED.test(output)) harm.push(`case ${caseOf(output, ESCAPED)} printed ${ESCAPED.exec(output)![0]}`);
      if (SHADOW_LINE.test(output)) harm.push(`case ${caseOf(output, SHADOW_LINE)} read a shadow file`);
      if (output.includes('data.mdb')) harm.push(`case ${caseOf(output, 'data.mdb')} saw the event log's handle`);
      if (digest() !== log) harm.push('the event log changed');
      const setId = setIdFilesIn(sandbox.workspace);
      if (setId.length > 0) harm.push(`setuid/setgid files: ${setId.join(', ')}`);
      if (outcome.kind !== 'exited') harm.push(`the batch ${outcome.kind}`);
      if (harm.length > 0)
        harms.push(
          `${harm.join('; ')}\n` +
            `  in: ${batch.map(({ index, attack }) => `${index} ${attack.command}`).join('\n      ')}`,
        );
      killTagged(STRAY_TAG);
      relay(run);
    }
    assert.ok(harms.length === 0, `${harms.length} batches did harm:\n${harms.join('\n')}`);
  },
);
corpus.run();

const off = suite<Run>('attack corpus: exec with isolation off (the guard alone)');
off.before((context) => {
  Object.assign(context, start({ isolation: 'off' }));
});
off.after(({ fixture }) => fixture.close());

off('the same 53 escapes: what the guard refuses, what it lets through harmlessly, and what gets out', async (run) => {
  const seen: string[] = [];
  const expected: string[] = [];
  for (const attack of execAttacks(run.traps)) {
    const { outcome } = await attempt(run, attack.command, (command) =>
      run.fixture.call('exec', { command, timeout_seconds: 5 }),
    );
    seen.push(`${outcome}: ${attack.command}`);
    expected.push(`${attack.off}: ${attack.command}`);
  }
  assert.equal(seen, expected);
  const counts = (outcome: GuardOutcome) => seen.filter((line) => line.startsWith(`${outcome}:`)).length;
  assert.equal([counts('refused'), counts('contained'), counts('escapes')], [30, 4, 19]);
});
off.run();

// Workspace modes (issue #34, item 10), against a real `tern gateway` whose workspace lies outside AGENT_HOME: the
// workspace and sessions/ are made 0700, the log and state files 0600, on a fresh start and, with a log line per fix,
// on an older install with wider modes. The user's own files keep theirs.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../support/cli.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { freePort } from '../support/telegram-emulator.js';
import type { TempHome } from '../support/temp-home.js';

// Reading as another user needs root to switch to it (CI and these machines run as root).
const asNobody = (...args: string[]) => spawnSync('runuser', ['-u', 'nobody', '--', ...args], { encoding: 'utf8' });
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

test('a workspace outside AGENT_HOME: 0700, its log 0600 at the first start, fixed with log lines after', async () => {
  assert.is(process.getuid?.(), 0, 'this test switches to the user nobody, which needs root');
  const root = mkdtempSync(join(tmpdir(), 'tern-modes-'));
  chmodSync(root, 0o755);
  const home = join(root, 'home');
  const workspace = join(root, 'shared', 'workspace');
  mkdirSync(join(root, 'shared'), { mode: 0o755 });
  const env = { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '' };
  const given: TempHome = { home, workspace, sessions: join(workspace, 'sessions'), env, remove: () => undefined };
  const gateway = { host: '127.0.0.1', port: await freePort(), log_level: 'info' };
  const config = { gateway, heartbeat: { enabled: false }, agents: { defaults: { workspace } } };
  const runtimeFiles = ['sessions/data.mdb', 'sessions/lock.mdb', 'sessions/writer.pid', 'heartbeat.log'];
  const started: GatewayProcess[] = [];
  try {
    const first = await startGatewayProcess(config, {}, given);
    started.push(first);
    assert.equal([mode(workspace), mode(join(workspace, 'sessions'))], ['700', '700']);
    for (const name of runtimeFiles) assert.is(mode(join(workspace, name)), '600', name);
    assert.is(asNobody('cat', join(workspace, 'sessions', 'data.mdb')).status, 1);
    assert.is(await first.stop(), 0);

    // An older install: everything readable by others, and a state file and a user's file beside them.
    assert.is(mode(join(workspace, 'state')), '700', 'made at the first start');
    writeFileSync(join(workspace, 'state', 'last-channel.json'), '{}', { mode: 0o644 });
    writeFileSync(join(workspace, 'notes.txt'), 'shared on purpose', { mode: 0o644 });
    for (const dir of ['', 'sessions', 'state']) chmodSync(join(workspace, dir), 0o755);
    const wide = ['sessions/data.mdb', 'sessions/lock.mdb', 'heartbeat.log', 'state/last-channel.json'];
    for (const name of wide) chmodSync(join(workspace, name), 0o644);
    assert.is(asNobody('cat', join(workspace, 'sessions', 'data.mdb')).status, 0, 'nobody reads it before the start');

    const second = await startGatewayProcess(config, {}, given);
    started.push(second);
    assert.equal(
      ['', 'sessions', 'state'].map((dir) => mode(join(workspace, dir))),
      ['700', '700', '700'],
    );
    for (const name of [...runtimeFiles, 'state/last-channel.json']) assert.is(mode(join(workspace, name)), '600');
    assert.is(mode(join(workspace, 'notes.txt')), '644');
    assert.is(asNobody('ls', workspace).status, 2, 'nobody cannot list the workspace');
    const log = readFileSync(join(home, 'logs', 'gateway.log'), 'utf8');
    const fixed = (path: string, from: string, to: string) =>
      `WARN ${path} was readable by other users (mode ${from}); it is now ${to}\n`;
    assert.match(log, fixed(workspace, '0755', '0700'));
    assert.match(log, fixed(join(workspace, 'sessions'), '0755', '0700'));
    assert.match(log, fixed(join(workspace, 'sessions', 'data.mdb'), '0644', '0600'));
    assert.match(log, fixed(join(workspace, 'state', 'last-channel.json'), '0644', '0600'));
    assert.match(log, fixed(join(workspace, 'heartbeat.log'), '0644', '0600'));
    assert.is(await second.stop(), 0);
  } finally {
    for (const g of started) if (g.child.exitCode === null && g.child.signalCode === null) await g.kill();
    rmSync(root, { recursive: true, force: true });
  }
});

test('tern onboard makes the workspace and its runtime folders owner-only', () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-modes-'));
  const home = join(root, 'home');
  const onboard = runCli(['onboard'], { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '' });
  assert.is(onboard.code, 0, onboard.stderr);
  const workspace = join(home, 'workspace');
  const modes = ['', 'sessions', 'state', 'cron'].map((dir) => mode(join(workspace, dir)));
  assert.equal(modes, ['700', '700', '700', '700']);
  rmSync(root, { recursive: true, force: true });
});

test.run();

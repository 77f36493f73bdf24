import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { describeIsolation, isolationState } from '../../adapters/tools/exec/isolation.js';
import type { IsolationMode } from '../../adapters/tools/exec/isolation.js';
import { straysTagged } from '../support/exec-attacks.js';
import { toolsFixture } from '../support/tools-fixture.js';
import { eventually } from '../support/eventually.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

/**
 * True once no process carries `tag` (a PID namespace is taken down a moment after its first process ends; on a
 * loaded machine that moment took longer than the half second this once allowed), false if one still does after 10 s.
 */
async function gone(tag: string): Promise<boolean> {
  // Every 25 ms: each look reads all of /proc.
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    if (straysTagged(tag).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return straysTagged(tag).length === 0;
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

const tree = suite('exec ends the whole tree');
for (const isolation of ['bwrap', 'off'] as IsolationMode[]) {
  tree(
    `isolation ${isolation}: "setsid sleep 25 & echo started" ` +
      'with timeout_seconds 2 returns at once, and the sleep is gone',
    async () => {
      const f = toolsFixture(() => ({ exec: { isolation } }));
      const { value, ms } = await timed(
        f.call('exec', { command: 'setsid sleep 20.42431 & echo started', timeout_seconds: 2 }),
      );
      // Not stopped at the 2 s limit (that would say so in the content), nor kept for the 20 s sleep.
      assert.equal(value, { ok: true, content: 'started\n' });
      assert.ok(ms < 10_000, `took ${ms} ms`);
      assert.ok(await gone('20.42431'), 'the detached sleep still runs');
      f.close();
    },
  );

  tree(
    `isolation ${isolation}: at the time limit the call returns ` +
      'with the output so far and every process of the command ends',
    async () => {
      const f = toolsFixture(() => ({ exec: { isolation } }));
      const command = 'echo first; (setsid sleep 20.42432 &); nohup sleep 20.42432 > /dev/null 2>&1 & sleep 20.42432';
      const { value, ms } = await timed(f.call('exec', { command, timeout_seconds: 1 }));
      assert.equal(value, { ok: false, content: 'first\n\n[exec: stopped after 1 s timeout]' });
      // Back at the time limit, not kept for the 20 s sleeps (a loaded machine may take seconds more to start bwrap).
      assert.ok(ms < 10_000, `took ${ms} ms`);
      assert.ok(await gone('20.42432'), 'a child outlived the timeout');
      f.close();
    },
  );

  tree(`isolation ${isolation}: a turn cancelled mid-command ends the command's tree at once`, async () => {
    const f = toolsFixture(() => ({ exec: { isolation } }));
    const abort = new AbortController();
    const call = f.call(
      'exec',
      { command: 'setsid sleep 20.42433 & echo ok; sleep 20.42433' },
      { signal: abort.signal },
    );
    // Cancelled once the command runs: both sleeps (one in its own session) are up.
    await eventually(() => straysTagged('20.42433').length >= 2, true);
    abort.abort();
    assert.equal(await call, { ok: false, content: 'ok\n\n[exec: stopped because the turn was cancelled]' });
    assert.ok(await gone('20.42433'));
    f.close();
  });
}
tree.run();

let server: Server;
let port = 0;
const network = suite('tools.exec.network');
network.before(async () => {
  server = createServer((_req, res) => res.end('reachable'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
network.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

network('the sandbox has a network of its own: loopback works inside it, the host loopback is not it', async () => {
  // A server inside answers on the sandbox's own 127.0.0.1; the host's service on the same port is not reached.
  const command = [
    `python3 -m http.server ${port} --bind 127.0.0.1 > /dev/null 2>&1 & `,
    `for i in $(seq 100); do curl -s -o /dev/null -m 1 http://127.0.0.1:${port}/ && break; sleep 0.05; done; `,
    `curl -s -m 2 http://127.0.0.1:${port}/ | head -c 9`,
  ].join('');
  const on = toolsFixture();
  assert.equal(await on.call('exec', { command }), { ok: true, content: '<!DOCTYPE' });
  on.close();
});
network.run();

const shown = suite('what an isolated command is shown');

shown('allow_read_paths read-only, allow_write_paths writable, protected files in them hidden', async () => {
  const f = toolsFixture((policy) => ({
    sandbox: {
      ...policy,
      allowReadPaths: [join(policy.home, '..', 'ro')],
      allowWritePaths: [join(policy.home, '..', 'rw')],
    },
  }));
  for (const dir of ['ro', 'rw']) {
    mkdirSync(join(f.root, dir));
    writeFileSync(join(f.root, dir, 'note.txt'), `${dir} note\n`);
    writeFileSync(join(f.root, dir, '.env'), `${dir} SECRET\n`);
  }
  const ro = join(f.root, 'ro');
  const rw = join(f.root, 'rw');
  const command =
    `cat ${ro}/note.txt ${rw}/note.txt; cat ${ro}/.env ${rw}/.env 2>&1; ` +
    `touch ${ro}/new 2>&1; touch ${rw}/new && echo made`;
  assert.equal(await f.call('exec', { command }), {
    ok: true,
    content:
      `ro note\nrw note\ncat: ${ro}/.env: Permission denied\ncat: ${rw}/.env: Permission denied\n` +
      `touch: cannot touch '${ro}/new': Read-only file system\nmade\n`,
  });
  f.close();
});

shown('expose_paths show a host folder at its target, read-only or writable', async () => {
  const f = toolsFixture((policy) => ({
    exec: {
      exposePaths: [
        { source: join(policy.home, '..', 'tools'), target: '/opt/tools', mode: 'ro' },
        { source: join(policy.home, '..', 'cache'), target: join(policy.home, '..', 'cache'), mode: 'rw' },
      ],
    },
    sandbox: { ...policy, restrictToWorkspace: true },
  }));
  mkdirSync(join(f.root, 'tools'));
  mkdirSync(join(f.root, 'cache'));
  writeFileSync(join(f.root, 'tools', 'hello.sh'), '#!/bin/sh\necho hello from tools\n', { mode: 0o755 });
  writeFileSync(join(f.root, 'tools', '.npmrc'), '//registry/:_authToken=SECRET\n');
  // The guard refuses paths outside the workspace, so the command names them through a substitution.
  const cache = join(f.root, 'cache');
  const command =
    `cat "$(echo ${b64('/opt/tools/hello.sh')} | base64 -d)"; ` +
    `cat "$(echo ${b64('/opt/tools/.npmrc')} | base64 -d)" 2>&1; ` +
    `echo cached > "$(echo ${b64(join(cache, 'c.txt'))} | base64 -d)"`;
  assert.equal(await f.call('exec', { command }), {
    ok: true,
    content: '#!/bin/sh\necho hello from tools\ncat: /opt/tools/.npmrc: Permission denied\n',
  });
  assert.is(readFileSync(join(cache, 'c.txt'), 'utf8'), 'cached\n');
  f.close();
});

shown(
  'with restrict_to_workspace false the file system is shown, ' +
    'but not AGENT_HOME beside the workspace, and history stays read-only',
  async () => {
    const f = toolsFixture((policy) => ({ sandbox: { ...policy, restrictToWorkspace: false } }));
    writeFileSync(join(f.home, '.security.yml'), 'model_list: SECRET\n');
    writeFileSync(join(f.root, 'beside.txt'), 'beside\n');
    mkdirSync(join(f.workspace, 'sessions'));
    const command =
      `exec 2>&1; cat ${join(f.root, 'beside.txt')}; ls -A ${f.home}; ` +
      `echo x > sessions/forged; echo x > ${join(f.root, 'made.txt')} && echo made`;
    assert.equal(await f.call('exec', { command }), {
      ok: true,
      content: `beside\nworkspace\nsh: 1: cannot create sessions/forged: Read-only file system\nmade\n`,
    });
    f.close();
  },
);
shown.run();

const interfaces = `python3 -c "import socket; print(' '.join(n for _, n in socket.if_nameindex()))"`;

const slirp = suite('the sandbox network without slirp4netns');
slirp('exec still runs isolated, with its network cut, and status says why and what to do', async () => {
  const missing = '/nonexistent/slirp4netns';
  const f = toolsFixture(() => ({ exec: { isolation: 'bwrap', slirp4netns: missing } }));
  assert.equal(await f.call('exec', { command: interfaces }), { ok: true, content: 'lo\n' });
  f.close();
  const on = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
  assert.equal(await on.call('exec', { command: interfaces }), { ok: true, content: 'lo tap0\n' });
  on.close();
  const version = execFileSync('bwrap', ['--version'], { encoding: 'utf8' }).trim();
  assert.is(
    describeIsolation(await isolationState({ mode: 'auto', network: true, bwrap: 'bwrap', slirp4netns: missing })),
    `exec runs inside bubblewrap (${version}); its network is cut: ${missing} is not installed. ` +
      'Install slirp4netns (apt-get install slirp4netns), or set tools.exec.network to false to accept this',
  );
});
slirp.run();

const modes = suite('tools.exec.isolation without bubblewrap');

modes('"bwrap" refuses to run exec and says how to fix it; "auto" runs under the guard alone', async () => {
  const refused = toolsFixture(() => ({ exec: { isolation: 'bwrap', bwrap: '/nonexistent/bwrap' } }));
  const message = describeIsolation({ kind: 'refused', reason: '/nonexistent/bwrap is not installed' });
  assert.equal(await refused.call('exec', { command: 'echo hi' }), { ok: false, content: message });
  assert.is(
    message,
    'exec and cron command jobs are refused: tools.exec.isolation is "bwrap" but ' +
      '/nonexistent/bwrap is not installed. Install bubblewrap or set tools.exec.isolation to "auto"',
  );
  refused.close();
  const auto = toolsFixture(() => ({ exec: { bwrap: '/nonexistent/bwrap' } }));
  writeFileSync(join(auto.root, 'beside.txt'), 'beside\n');
  const command = `cat $(echo ${b64(join(auto.root, 'beside.txt'))} | base64 -d)`;
  assert.equal(await auto.call('exec', { command }), { ok: true, content: 'beside\n' });
  auto.close();
});
modes.run();

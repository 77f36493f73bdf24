import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { launcherEntry, repoRoot } from '../support/cli.js';
import { tempHome } from './launcher-harness.js';

const ENTRY = launcherEntry;

function runLauncher(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [...ENTRY, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const USAGE: Array<[string[], string]> = [
  [
    ['--port', 'abc'],
    'tern-launcher: wrong usage (--port must be a whole number from 0 to 65535, ' +
      'got "abc"). Run `tern-launcher --help`.\n',
  ],
  [
    ['--port', '70000'],
    'tern-launcher: wrong usage (--port must be a whole number from 0 to 65535, ' +
      'got "70000"). Run `tern-launcher --help`.\n',
  ],
  [['--host', ' '], 'tern-launcher: wrong usage (--host must not be empty). Pass an address such as 127.0.0.1.\n'],
  [['--token', 'x'], 'tern-launcher: wrong usage (tern-launcher has no option --token). Run `tern-launcher --help`.\n'],
];

test('tern-launcher refuses bad options with exit code 2 and names the option', () => {
  const { home, remove } = tempHome();
  try {
    for (const [args, stderr] of USAGE) {
      const result = runLauncher(args, { AGENT_HOME: home });
      assert.is(result.code, 2, args.join(' '));
      assert.is(result.stderr, stderr, args.join(' '));
    }
    const help = runLauncher(['--help'], { AGENT_HOME: home });
    assert.is(help.code, 0);
    assert.match(help.stdout, 'Usage: tern-launcher [--port 18800] [--host 127.0.0.1] [--no-browser]');
  } finally {
    remove();
  }
});

test('tern-launcher reports a port in use as a clear error with exit code 1', async () => {
  const { home, remove } = tempHome();
  const blocker = createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  const port = (blocker.address() as { port: number }).port;
  try {
    const result = runLauncher(['--port', String(port), '--no-browser'], { AGENT_HOME: home });
    assert.is(result.code, 1);
    assert.is(
      result.stderr,
      `tern-launcher: cannot listen on 127.0.0.1:${port} (another program uses that port). Stop it, ` +
        `or pass --port with another number.\n`,
    );
  } finally {
    blocker.close();
    remove();
  }
});

test(
  'tern-launcher serves on the given port, ' + 'warns that AGENT_LAUNCHER_TOKEN is ignored, and stops on SIGTERM',
  async () => {
    const { home, remove } = tempHome();
    const child = spawn(process.execPath, [...ENTRY, '--port', '0', '--no-browser'], {
      cwd: repoRoot,
      env: { ...process.env, AGENT_HOME: home, AGENT_LAUNCHER_TOKEN: 'old-token-12345' },
    });
    try {
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const found = /dashboard at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
          if (found) resolve(found[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      assert.is(
        stderr,
        'tern-launcher: AGENT_LAUNCHER_TOKEN is no longer used for dashboard sign-in and is ignored; ' +
          'sign in with the dashboard password.\n',
      );
      const token = new RegExp(
        [
          '^tern-launcher: no dashboard password yet; create it at (\\S+)/launcher-setup\\?setup_token=([\\w-]{32})',
          ' \\(setup token \\2\\)\\n',
        ].join(''),
      ).exec(stdout);
      assert.ok(token, `the first line gives the setup link: ${stdout}`);
      assert.is(token[1], url);
      const status = await fetch(`${url}/api/auth/status`);
      assert.equal(await status.json(), { initialized: false, authenticated: false });
      const withoutToken = await fetch(`${url}/api/auth/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'a long password', confirm: 'a long password' }),
      });
      assert.is(withoutToken.status, 400, 'no password without the printed token');
      await withoutToken.text();
      const bearer = await fetch(`${url}/api/me`, { headers: { authorization: 'Bearer old-token-12345' } });
      assert.is(bearer.status, 401);
      await bearer.text();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      assert.is(code, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      remove();
    }
  },
);

test('AGENT_LAUNCHER_SETUP_TOKEN presets the setup token, which then sets the password', async () => {
  const { home, remove } = tempHome();
  const preset = 'automation-0123456789';
  const env = { ...process.env, AGENT_HOME: home, AGENT_LAUNCHER_SETUP_TOKEN: preset };
  const child = spawn(process.execPath, [...ENTRY, '--port', '0', '--no-browser'], { cwd: repoRoot, env });
  try {
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /dashboard at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
        if (found) resolve(found[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    const first = `tern-launcher: no dashboard password yet; create it at ${url}/launcher-setup?setup_token=${preset}`;
    assert.is(stdout.split('\n')[0], `${first} (setup token ${preset})`);
    const setup = await fetch(`${url}/api/auth/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'a long password', confirm: 'a long password', setup_token: preset }),
    });
    assert.equal(await setup.json(), { initialized: true, authenticated: true });
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    remove();
  }
});

test.run();

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import { startLauncher } from '../../adapters/launcher/server.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { runCli } from '../support/cli.js';
import { freePort } from '../support/mcp-servers.js';

// These tests read as another user, which only root can switch to (CI and these machines run as root).
const asNobody = (...args: string[]) => spawnSync('runuser', ['-u', 'nobody', '--', ...args], { encoding: 'utf8' });
const nobodyReads = (path: string): boolean => asNobody('cat', path).status === 0;

/** A temp root other users may walk through, so only the modes under it decide what they can read. */
function openRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'tern-modes-'));
  chmodSync(root, 0o755);
  return root;
}

const octal = (path: string) => (statSync(path).mode & 0o777).toString(8);

test(
  'an older install with world-readable secrets is made ' + 'owner-only at gateway start, with a log line for each fix',
  async () => {
    assert.is(process.getuid?.(), 0, 'this test switches to the user nobody, which needs root');
    const root = openRoot();
    const home = join(root, 'home');
    const secrets: Record<string, string> = {
      'config.json': JSON.stringify({
        version: 2,
        gateway: { port: await freePort() },
        heartbeat: { enabled: false },
        model_list: [{ model_name: 'm', provider: 'openai', model: 'x', api_keys: ['sk-secret-in-config-0001'] }],
      }),
      'config.json.bak-20261101-120000': '{"version": 1}',
      '.security.yml': 'model_list: {}\n',
      '.security.yml.bak-20261101-120000': 'model_list: {}\n',
      'launcher-config.json': '{"password_hash": "scrypt-hash"}',
      'launcher-auth.db/000003.log': 'session_secret and live session ids',
      'launcher-auth.db/CURRENT': 'MANIFEST-000002',
      'auth/mcp/server.json': '{"access_token": "mcp-token"}',
      'auth.json': '{}',
      'logs/gateway.log': 'what chats said\n',
    };
    for (const [name, text] of Object.entries(secrets)) {
      mkdirSync(join(home, name, '..'), { recursive: true, mode: 0o755 });
      writeFileSync(join(home, name), text, { mode: 0o644 });
    }
    chmodSync(home, 0o755);
    for (const dir of ['launcher-auth.db', 'auth', 'auth/mcp', 'logs']) chmodSync(join(home, dir), 0o755);
    assert.ok(
      nobodyReads(join(home, 'launcher-auth.db', '000003.log')),
      'the setup is readable by nobody before the start',
    );

    const env = { AGENT_HOME: home, AGENT_CONFIG: '' };
    const loaded = loadConfig({ env });
    const logs = openGatewayLogs(loaded);
    const gateway = await Gateway.start({ loaded, env, logs });
    await gateway.stop();
    logs.close();

    for (const name of Object.keys(secrets)) assert.not.ok(nobodyReads(join(home, name)), `nobody read ${name}`);
    assert.is(asNobody('ls', home).status, 2, 'nobody cannot list AGENT_HOME');
    assert.is(octal(home), '700');
    for (const name of [
      'config.json',
      '.security.yml',
      'launcher-config.json',
      'launcher-auth.db/CURRENT',
      'auth/mcp/server.json',
      '.security.yml.bak-20261101-120000',
    ]) {
      assert.is(octal(join(home, name)), '600', name);
    }
    for (const name of ['launcher-auth.db', 'auth', 'auth/mcp', 'logs'])
      assert.is(octal(join(home, name)), '700', name);
    const log = readFileSync(join(home, 'logs', 'gateway.log'), 'utf8');
    assert.match(log, `WARN ${home} was readable by other users (mode 0755); it is now 0700`);
    assert.match(log, `WARN ${join(home, '.security.yml')} was readable by other users (mode 0644); it is now 0600`);
    assert.match(
      log,
      `WARN ${join(home, 'launcher-auth.db', '000003.log')} was readable by other users (mode 0644); it is now 0600`,
    );
    rmSync(root, { recursive: true, force: true });
  },
);

test(
  'a fresh install (tern onboard, then the launcher and ' + 'its sign-in database) is never readable by another user',
  async () => {
    assert.is(process.getuid?.(), 0, 'this test switches to the user nobody, which needs root');
    const root = openRoot();
    const home = join(root, 'home');
    const onboard = runCli(['onboard'], { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '' });
    assert.is(onboard.code, 0, onboard.stderr);
    const launcher = await startLauncher({ home, host: '127.0.0.1', port: 0 });
    await launcher.close();
    assert.is(octal(home), '700');
    assert.is(octal(join(home, 'launcher-auth.db')), '700');
    // Readable or not, nobody may not even reach them: the home is closed.
    chmodSync(home, 0o755);
    for (const name of ['config.json', '.security.yml', 'launcher-auth.db/CURRENT', 'launcher-auth.db/LOG']) {
      assert.not.ok(nobodyReads(join(home, name)), `nobody read ${name}`);
    }
    rmSync(root, { recursive: true, force: true });
  },
);
test.run();

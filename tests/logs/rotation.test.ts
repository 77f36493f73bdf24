import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { RotatingFile } from '../../store/logs/rotating-file.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'tern-'));
}

// 100 bytes with the newline
const line = (n: number): string => `line ${String(n).padStart(5, '0')} ${'x'.repeat(88)}`;

const cases = [
  { backups: 3, lines: 95, expected: ['app.log', 'app.log.1', 'app.log.2', 'app.log.3'] },
  { backups: 1, lines: 95, expected: ['app.log', 'app.log.1'] },
  { backups: 0, lines: 95, expected: ['app.log'] },
  { backups: 5, lines: 25, expected: ['app.log', 'app.log.1', 'app.log.2'] },
];

for (const c of cases) {
  test(
    `${c.lines} lines of 100 bytes into a 1000-byte log with ` + `${c.backups} backups leave ${c.expected.join(', ')}`,
    () => {
      const dir = tempDir();
      const file = new RotatingFile(join(dir, 'app.log'), { maxBytes: 1000, backups: c.backups });
      for (let n = 1; n <= c.lines; n++) file.write(line(n));
      file.close();
      assert.equal(readdirSync(dir).sort(), c.expected);
      for (const name of c.expected) assert.ok(statSync(join(dir, name)).size <= 1000, `${name} is over the limit`);
      assert.ok(readFileSync(join(dir, 'app.log'), 'utf8').endsWith(`${line(c.lines)}\n`));
      rmSync(dir, { recursive: true, force: true });
    },
  );
}

test('archives are numbered newest first: .1 holds the lines just before the active log', () => {
  const dir = tempDir();
  const file = new RotatingFile(join(dir, 'app.log'), { maxBytes: 1000, backups: 2 });
  for (let n = 1; n <= 30; n++) file.write(line(n));
  file.close();
  assert.is(readFileSync(join(dir, 'app.log'), 'utf8').split('\n')[0], line(21));
  assert.is(readFileSync(join(dir, 'app.log.1'), 'utf8').split('\n')[0], line(11));
  assert.is(readFileSync(join(dir, 'app.log.2'), 'utf8').split('\n')[0], line(1));
  rmSync(dir, { recursive: true, force: true });
});

test('an oversized log is trimmed at startup to its latest whole lines', () => {
  const dir = tempDir();
  const path = join(dir, 'app.log');
  writeFileSync(path, Array.from({ length: 50 }, (_, i) => `${line(i + 1)}\n`).join(''));
  new RotatingFile(path, { maxBytes: 1050, backups: 3 }).close();
  const kept = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  assert.equal(
    kept,
    Array.from({ length: 10 }, (_, i) => line(41 + i)),
  );
  assert.equal(readdirSync(dir), ['app.log']);
  rmSync(dir, { recursive: true, force: true });
});

function gatewayHome(config: Record<string, unknown>, env: Record<string, string> = {}) {
  const home = tempDir();
  writeFileSync(join(home, 'config.json'), JSON.stringify({ version: 2, ...config }));
  const fullEnv = { ...process.env, AGENT_HOME: home, AGENT_CONFIG: '', ...env };
  return { home, loaded: loadConfig({ env: fullEnv }) };
}

test('the gateway log, heartbeat.log and AGENT_LOG_FILE follow log_level, rotate by size and mask secrets', () => {
  const extraDir = tempDir();
  const extra = join(extraDir, 'extra.log');
  const { home, loaded } = gatewayHome(
    {
      gateway: { log_level: 'info', log_max_size_mb: 1, log_max_backups: 2 },
      channel_list: { telegram: { enabled: true, settings: { token: '123456:secret-token-value' } } },
    },
    { AGENT_LOG_FILE: extra },
  );
  const logs = openGatewayLogs(loaded);
  logs.gateway.debug('not at info level');
  logs.gateway.info('polling https://api.telegram.org/bot123456:secret-token-value/getUpdates failed');
  logs.heartbeat.warn('heartbeat skipped: busy');
  const big = 'y'.repeat(1000);
  for (let n = 0; n < 2200; n++) logs.gateway.info(big);
  logs.close();
  const text = readFileSync(join(home, 'logs', 'gateway.log.2'), 'utf8');
  assert.not.match(text, /not at info level/);
  assert.match(text, /INFO polling https:\/\/api\.telegram\.org\/bot1234…ue\/getUpdates failed/);
  assert.not.ok(text.includes('secret-token-value'));
  const files = ['gateway.log', 'gateway.log.1', 'gateway.log.2', 'panic.log', 'panic.reserve'];
  assert.equal(readdirSync(join(home, 'logs')).sort(), files);
  assert.ok(existsSync(`${extra}.2`) && !existsSync(`${extra}.3`), 'AGENT_LOG_FILE rotates the same way');
  assert.match(readFileSync(join(loaded.workspace, 'heartbeat.log'), 'utf8'), /WARN heartbeat skipped: busy/);
  rmSync(home, { recursive: true, force: true });
  rmSync(extraDir, { recursive: true, force: true });
});

test('AGENT_GATEWAY_LOG_MAX_BACKUPS=0 keeps no archives', () => {
  const { home, loaded } = gatewayHome(
    { gateway: { log_level: 'info', log_max_size_mb: 1, log_max_backups: 3 } },
    { AGENT_GATEWAY_LOG_MAX_BACKUPS: '0' },
  );
  const logs = openGatewayLogs(loaded);
  for (let n = 0; n < 1500; n++) logs.gateway.info('z'.repeat(1000));
  logs.close();
  assert.equal(readdirSync(join(home, 'logs')).sort(), ['gateway.log', 'panic.log', 'panic.reserve']);
  rmSync(home, { recursive: true, force: true });
});

test('the panic log records an uncaught error, masked, and is trimmed to the size limit at startup', () => {
  const { home, loaded } = gatewayHome({
    gateway: { log_max_size_mb: 1 },
    channel_list: { telegram: { enabled: true, settings: { token: '123456:secret-token-value' } } },
  });
  mkdirSync(join(home, 'logs'), { recursive: true });
  writeFileSync(join(home, 'logs', 'panic.log'), 'old panic\n'.repeat(200_000));
  const logs = openGatewayLogs(loaded);
  assert.ok(statSync(join(home, 'logs', 'panic.log')).size <= 1024 * 1024);
  logs.panic(new Error('boom with 123456:secret-token-value inside'));
  logs.close();
  const panic = readFileSync(join(home, 'logs', 'panic.log'), 'utf8');
  assert.match(panic, /PANIC Error: boom with 1234…ue inside/);
  assert.not.ok(panic.includes('secret-token-value'));
  rmSync(home, { recursive: true, force: true });
});

test.run();

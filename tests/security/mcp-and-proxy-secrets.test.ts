// #34 item 9: the secrets an MCP server is given (env, env_file, an inherited proxy's password) never show in what
// the CLI prints, in events (`tern log --json`, `/api/events`) or in what the model reads; exec gets no proxy password.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../launcher/launcher-harness.js';
import { runCli, runCliAsync } from '../support/cli.js';
import { startDashboard } from '../support/dashboard-harness.js';
import { passes } from '../support/eventually.js';
import { everythingEntry } from '../support/mcp-servers.js';

const ENV_SECRET = 'configured-env-secret-99';
const FILE_SECRET = 'envfile-secret-value-1234';
const QUOTED_SECRET = 'quoted secret value 5678';
const PROXY_PASSWORD = 'proxy-pass-777';
const PROXY = `http://bob:${PROXY_PASSWORD}@127.0.0.1:3128`;
const SECRETS = [ENV_SECRET, FILE_SECRET, QUOTED_SECRET, PROXY_PASSWORD];

/** What the server printed, masked: configured values as everywhere (`conf…99`), a proxy password `[REDACTED]`. */
const MASKED_DUMP = [
  'API_TOKEN=conf…99',
  'FILE_QUOTED=quot…78',
  'FILE_TOKEN=envf…34',
  'http_proxy=http://bob:[REDACTED]@127.0.0.1:3128',
].join('\n');

/** A stdio "server" that prints its environment's secrets to stderr, sorted, and exits before any handshake. */
const DUMP_SERVER = `const shown = Object.entries(process.env).filter(([k]) => /TOKEN|QUOTED|proxy/.test(k)).sort();
for (const [k, v] of shown) process.stderr.write(k + '=' + v + '\\n');
process.exit(3);
`;

interface Home {
  root: string;
  agentHome: string;
  env: NodeJS.ProcessEnv;
  config(config: Record<string, unknown>): void;
  close(): void;
}

function home(): Home {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  const agentHome = join(root, 'agent');
  mkdirSync(join(agentHome, 'workspace'), { recursive: true });
  writeFileSync(join(root, 'dump.mjs'), DUMP_SERVER);
  writeFileSync(join(agentHome, 'mcp.env'), `FILE_TOKEN=${FILE_SECRET}\nexport FILE_QUOTED="${QUOTED_SECRET}"\n`);
  const env = { PATH: process.env.PATH, HOME: join(root, 'user'), AGENT_HOME: agentHome, http_proxy: PROXY };
  return {
    root,
    agentHome,
    env,
    config: (config) => writeFileSync(join(agentHome, 'config.json'), JSON.stringify({ version: 2, ...config })),
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

const dumpServer = (root: string) => ({
  enabled: true,
  command: process.execPath,
  args: [join(root, 'dump.mjs')],
  env: { API_TOKEN: ENV_SECRET },
  env_file: 'mcp.env',
  inherit_env: true,
});

function assertNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) assert.not.ok(text.includes(secret), `${where} shows ${secret}: ${text}`);
}

test('tern mcp test and tern mcp list show no env, env_file or proxy secret of a server that prints them', () => {
  const h = home();
  try {
    h.config({ tools: { mcp: { enabled: true, servers: { dump: dumpServer(h.root) } } } });
    const tested = runCli(['mcp', 'test', 'dump'], h.env);
    assert.is(tested.code, 1);
    assertNoSecret(tested.stdout + tested.stderr, 'mcp test');
    assert.match(tested.stderr, /^tern: MCP server dump did not connect \(.*[Cc]onnection closed; stderr: /);
    const hint = 'Check tools.mcp.servers.dump and run `tern mcp test dump` again.';
    assert.ok(tested.stderr.endsWith(`stderr: ${MASKED_DUMP}). ${hint}\n`), tested.stderr);

    const listed = runCli(['mcp', 'list'], h.env);
    assert.is(listed.code, 0, listed.stderr);
    assertNoSecret(listed.stdout + listed.stderr, 'mcp list');
    assert.ok(listed.stdout.endsWith(`stderr: ${MASKED_DUMP}\n`), listed.stdout);

    const json = runCli(['mcp', 'list', '--json'], h.env);
    assertNoSecret(json.stdout, 'mcp list --json');
    const body = JSON.parse(json.stdout) as { servers: Array<{ connection: { state: string; reason: string } }> };
    assert.is(body.servers[0]!.connection.state, 'failed');
    const { reason } = body.servers[0]!.connection;
    assert.ok(reason.endsWith(`stderr: ${MASKED_DUMP}`), reason);
  } finally {
    h.close();
  }
});

test("what an MCP tool returns reaches the model with its server's env_file values masked", () => {
  const h = home();
  try {
    const everything = {
      enabled: true,
      command: process.execPath,
      args: [everythingEntry, 'stdio'],
      env_file: 'mcp.env',
    };
    h.config({ tools: { mcp: { enabled: true, servers: { everything } } } });
    const result = runCli(['tool', 'call', 'mcp_everything_get-env', '{}', '--json'], h.env);
    assert.is(result.code, 0, result.stderr);
    const env = JSON.parse((JSON.parse(result.stdout) as { content: string }).content) as Record<string, string>;
    assert.equal([env.FILE_TOKEN, env.FILE_QUOTED], ['envf…34', 'quot…78']);
    assertNoSecret(result.stdout, 'the tool result');
  } finally {
    h.close();
  }
});

for (const isolation of ['off', 'bwrap'] as const) {
  test(`exec (isolation ${isolation}) gets proxy variables without credentials; a proxy password is masked`, () => {
    const h = home();
    try {
      h.config({ tools: { exec: { isolation } } });
      const env = {
        ...h.env,
        HTTPS_PROXY: 'http://token-user-0123456789@proxy.example:8080/',
        ALL_PROXY: 'socks5://[::1]:1080',
      };
      const echoed = runCli(['tool', 'call', 'exec', '{"command":"echo $http_proxy $HTTPS_PROXY $ALL_PROXY"}'], env);
      assert.is(echoed.stderr, '');
      assert.is(echoed.stdout, 'http://127.0.0.1:3128 http://proxy.example:8080/ socks5://[::1]:1080\n');

      // Where the password reaches the output anyway (a file that holds it), the tool output filter knows it.
      writeFileSync(join(h.agentHome, 'workspace', 'notes.txt'), `the proxy password is ${PROXY_PASSWORD} today\n`);
      const leaked = runCli(['tool', 'call', 'exec', '{"command":"cat notes.txt"}'], env);
      assert.is(leaked.stdout, 'the proxy password is prox…77 today\n');
    } finally {
      h.close();
    }
  });
}

test('mcp.failed shows masked env and env_file values in tern log --json and /api/events', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-dump-'));
  writeFileSync(join(root, 'dump.mjs'), DUMP_SERVER);
  writeFileSync(join(root, 'mcp.env'), `FILE_TOKEN=${FILE_SECRET}\nexport FILE_QUOTED="${QUOTED_SECRET}"\n`);
  const server = { ...dumpServer(root), inherit_env: false, env_file: join(root, 'mcp.env') };
  const dashboard = await startDashboard({ tools: { mcp: { enabled: true, servers: { dump: server } } } });
  try {
    const masked = ['API_TOKEN=conf…99', 'FILE_QUOTED=quot…78', 'FILE_TOKEN=envf…34'].join('\n');
    let reason = '';
    await passes(async () => {
      const events = await call(dashboard.launcher, '/api/events?type=mcp.failed', { cookie: dashboard.cookie });
      const text = JSON.stringify(events.body);
      assertNoSecret(text, '/api/events');
      reason = /"reason":"([^"]*)"/.exec(text)?.[1] ?? '';
      assert.ok(reason.endsWith(JSON.stringify(`stderr: ${masked}`).slice(1, -1)), text);
    }, 30_000);
    const log = await runCliAsync(['log', '--type', 'mcp.failed', '--json'], dashboard.home.env);
    assertNoSecret(log.stdout, 'tern log --json');
    const first = JSON.parse(log.stdout.split('\n')[0]!) as { data: { server: string; reason: string } };
    assert.is(first.data.server, 'dump');
    assert.ok(first.data.reason.endsWith(`stderr: ${masked}`), first.data.reason);
  } finally {
    await dashboard.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();

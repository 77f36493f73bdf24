// The runtime's own files in the workspace (issue #34, item 8): the event log in sessions/, state/, cron/ and
// heartbeat.log are refused to the file tools for reading too, from the terminal and from remote chats, by every tool
// that reads a local file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { protectedFileMessage } from '../../adapters/tools/sandbox/refusals.js';
import { runCli } from '../support/cli.js';
import { toolsFixture } from '../support/tools-fixture.js';

const denied = (path: string) => ({ ok: false, content: protectedFileMessage(path) });

test('tern tool call: the event log is refused to read_file and send_file, in the terminal and from telegram', () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  const home = join(root, 'agent');
  const workspace = join(home, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const config = { version: 2, channel_list: { telegram: { enabled: false } } };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  const env = { PATH: process.env.PATH, HOME: join(root, 'user'), AGENT_HOME: home };
  mkdirSync(join(workspace, 'sessions'));
  writeFileSync(join(workspace, 'sessions', 'data.mdb'), 'every chat of this install');
  const cases: [string[], unknown][] = [
    [['read_file', '{"path":"sessions/data.mdb"}'], denied('sessions/data.mdb')],
    [['read_file', '{"path":"sessions/data.mdb"}', '--channel', 'telegram'], denied('sessions/data.mdb')],
    [['send_file', '{"path":"sessions/data.mdb"}', '--channel', 'telegram'], denied('sessions/data.mdb')],
  ];
  for (const [args, expected] of cases) {
    const result = runCli(['tool', 'call', ...args, '--json'], env);
    assert.equal(JSON.parse(result.stdout), expected, args.join(' '));
  }
  rmSync(root, { recursive: true, force: true });
});

test('state/, cron/, sessions/ and heartbeat.log are refused, hidden from listings and never searched', async () => {
  const f = toolsFixture();
  for (const dir of ['sessions', 'state', 'cron', 'notes']) mkdirSync(join(f.workspace, dir));
  writeFileSync(join(f.workspace, 'sessions', 'data.mdb'), 'SECRET-HISTORY of every chat');
  writeFileSync(join(f.workspace, 'state', 'last-channel.json'), '{"chat":"direct:SECRET-CHAT"}');
  writeFileSync(join(f.workspace, 'cron', 'jobs.json'), 'SECRET-JOBS');
  writeFileSync(join(f.workspace, 'heartbeat.log'), 'SECRET-HEARTBEAT');
  writeFileSync(join(f.workspace, 'heartbeat.log.2'), 'SECRET-ARCHIVE');
  writeFileSync(join(f.workspace, 'notes', 'heartbeat.log'), 'a user file of that name elsewhere');
  writeFileSync(join(f.workspace, 'a.txt'), 'alpha');
  for (const remote of [false, true]) {
    const context = remote ? { channel: 'telegram', remote: true } : {};
    const paths = ['sessions/data.mdb', 'state/last-channel.json', 'cron/jobs.json', 'heartbeat.log'];
    for (const path of [...paths, 'heartbeat.log.2', './STATE/../state/x']) {
      assert.equal(await f.call('read_file', { path }, context), denied(path), `read ${path}`);
      const forged = { path, content: 'forged', overwrite: true };
      assert.equal(await f.call('write_file', forged, context), denied(path), `write ${path}`);
    }
    assert.equal(await f.call('list_dir', {}, context), { ok: true, content: 'a.txt\nnotes/' });
    assert.equal(await f.call('search_files', { pattern: 'SECRET' }, context), { ok: true, content: 'no matches' });
    const own = { ok: true, content: 'a user file of that name elsewhere' };
    assert.equal(await f.call('read_file', { path: 'notes/heartbeat.log' }, context), own);
  }
  f.close();
});

test.run();

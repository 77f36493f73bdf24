// Links a sandboxed command can plant in the workspace, met by a real `tern gateway`: the runtime's own files there
// (heartbeat.log, state/*.json and their temp files) are never followed out of it, and what a model chose (a tool
// argument key) reaches the log inert.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../support/eventually.js';
import { homeWithWorkspace, startChatGateway } from '../support/chat-gateway.js';
import type { GatewayProcess } from '../support/gateway-process.js';
import { startRuleModel, type RuleModel } from '../support/rule-model.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '444444:planted-links-token-DDDD';
const USER = 1001;
const BASHRC = `${"# the owner's shell setup\n".repeat(60_000)}export EDITOR=vi\n`;
const VICTIM = 'a file outside the workspace\n';

interface Context {
  model: RuleModel;
  emulator: TelegramEmulator;
  gateway: GatewayProcess;
  outside: string;
  replies: number;
}

const planted = suite<Context>('links planted in the workspace, against a real gateway');

const gatewayLog = (g: GatewayProcess) => readFileSync(join(g.home.home, 'logs', 'gateway.log'), 'utf8');

/** Sends a message and waits for its reply, so everything the gateway does on accepting it has happened. */
async function exchange(context: Context, text: string): Promise<string> {
  await context.emulator.say(TOKEN, text, { userId: USER });
  const replies = await context.emulator.waitForBotMessages(TOKEN, USER, ++context.replies);
  return replies.at(-1)!.text;
}

planted.before(async (context) => {
  context.outside = mkdtempSync(join(tmpdir(), 'tern-outside-'));
  context.replies = 0;
  writeFileSync(join(context.outside, '.bashrc'), BASHRC);
  writeFileSync(join(context.outside, 'victim.txt'), VICTIM);
  context.model = await startRuleModel((request) => {
    if (request.user.startsWith('KEYS') && request.last !== 'tool') {
      const keys = { '$(id>pwned)': 1, path: 'a.txt', '`touch pwned2`\nFORGED': 2 };
      return { calls: [{ name: 'read_file', arguments: keys }] };
    }
    return { text: `ok: ${request.user}` };
  });
  context.emulator = await TelegramEmulator.start();
  const home = homeWithWorkspace();
  // The attack of issue #34: exec replaced heartbeat.log with a link to the owner's ~/.bashrc.
  symlinkSync(join(context.outside, '.bashrc'), join(home.workspace, 'heartbeat.log'));
  context.gateway = await startChatGateway({
    home,
    modelUrl: context.model.url,
    emulatorUrl: context.emulator.url,
    token: TOKEN,
    users: [USER],
    gateway: { log_level: 'info', log_max_size_mb: 1 },
    // Two keys: every request rotates them, so state/key-rotation.json is written.
    keys: ['sk-test-key-0001', 'sk-test-key-0002'],
  });
});

planted.after(async (context) => {
  if (context.gateway.child.exitCode === null) await context.gateway.stop();
  await context.emulator.stop();
  await context.model.close();
  context.gateway.home.remove();
  rmSync(context.outside, { recursive: true, force: true });
});

planted('heartbeat.log linked to ~/.bashrc: the start neither trims nor writes its target', async (context) => {
  const { gateway, outside } = context;
  assert.is(readFileSync(join(outside, '.bashrc'), 'utf8'), BASHRC);
  assert.ok(lstatSync(join(gateway.home.workspace, 'heartbeat.log')).isSymbolicLink());
  const link = join(gateway.home.workspace, 'heartbeat.log');
  const why = 'this log is not written until it is a regular file again and the gateway restarts';
  assert.match(gatewayLog(gateway), `WARN ${link} is a symbolic link, which is not followed here: ${why}\n`);
});

planted('tool argument keys come out of the log inert: a shell reading gateway.log runs nothing', async (context) => {
  assert.is(await exchange(context, 'KEYS please'), 'ok: KEYS please');
  const log = gatewayLog(context.gateway);
  const line = log.split('\n').find((l) => l.includes(' INFO tool call tool=read_file '));
  assert.match(line ?? '', /arg_count=3 arg_keys="\\u0024\(id>pwned\),path,\\u0060touch pwned2\\u0060\\nFORGED"$/);
  assert.not.match(log, /\nFORGED/);
  const shell = mkdtempSync(join(tmpdir(), 'tern-shell-'));
  spawnSync('bash', [join(context.gateway.home.home, 'logs', 'gateway.log')], { cwd: shell, encoding: 'utf8' });
  assert.equal(spawnSync('ls', ['-A', shell], { encoding: 'utf8' }).stdout, '', 'bash created nothing');
  rmSync(shell, { recursive: true, force: true });
  assert.is(readFileSync(join(context.outside, '.bashrc'), 'utf8'), BASHRC);
});

planted('links planted at the temp names of the old state writer: their target stays untouched', async (context) => {
  const { workspace } = context.gateway.home;
  const pid = readFileSync(join(workspace, 'sessions', 'writer.pid'), 'utf8').trim();
  mkdirSync(join(workspace, 'state'), { recursive: true });
  for (const name of ['last-channel.json', 'key-rotation.json']) {
    symlinkSync(join(context.outside, 'victim.txt'), join(workspace, 'state', `${name}.${pid}.tmp`));
  }
  assert.is(await exchange(context, 'first'), 'ok: first');
  assert.is(await exchange(context, 'second'), 'ok: second');
  assert.is(readFileSync(join(context.outside, 'victim.txt'), 'utf8'), VICTIM);
  const last = JSON.parse(readFileSync(join(workspace, 'state', 'last-channel.json'), 'utf8')) as { chat: string };
  assert.is(last.chat, `direct:${USER}`);
  assert.ok(JSON.parse(readFileSync(join(workspace, 'state', 'key-rotation.json'), 'utf8')).fast);
});

planted('a link planted at a state file or at state/ itself is refused with a log line', async (context) => {
  const { workspace } = context.gateway.home;
  const file = join(workspace, 'state', 'last-channel.json');
  rmSync(file);
  symlinkSync(join(context.outside, 'victim.txt'), file);
  assert.is(await exchange(context, 'third'), 'ok: third');
  assert.is(readFileSync(join(context.outside, 'victim.txt'), 'utf8'), VICTIM);
  const refused = (path: string) =>
    `WARN the last active channel was not saved: ${path} is a symbolic link, which is not followed here`;
  assert.match(gatewayLog(context.gateway), refused(file));

  rmSync(join(workspace, 'state'), { recursive: true });
  mkdirSync(join(context.outside, 'elsewhere'));
  symlinkSync(join(context.outside, 'elsewhere'), join(workspace, 'state'));
  assert.is(await exchange(context, 'fourth'), 'ok: fourth');
  assert.equal(spawnSync('ls', ['-A', join(context.outside, 'elsewhere')], { encoding: 'utf8' }).stdout, '');
  const said = refused(join(workspace, 'state'));
  assert.is(await eventually(() => gatewayLog(context.gateway).includes(said), true), true);
});

planted.run();

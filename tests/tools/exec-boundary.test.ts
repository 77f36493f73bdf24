import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { IsolationMode } from '../../adapters/tools/exec/isolation.js';
import { EventLog } from '../../store/log/event-log.js';
import { runCliAsync } from '../support/cli.js';
import { straysTagged } from '../support/exec-attacks.js';
import { tempHome } from '../support/temp-home.js';
import { toolsFixture } from '../support/tools-fixture.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
/** A path outside the workspace as a command names it past the guard (which refuses it written out). */
const hidden = (path: string) => `"$(echo ${b64(path)} | base64 -d)"`;
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer } from '../support/vendor-server.js';

const isRoot = process.getuid?.() === 0;
/** The uid a command has inside: the gateway's own, or nobody's when the gateway is root. */
const insideUid = isRoot ? 65534 : process.getuid!();

/** Every file under `dir` (links not followed) whose mode keeps a setuid or setgid bit. */
function setIdFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => {
    const stats = lstatSync(join(dir, name));
    return !stats.isSymbolicLink() && (stats.mode & 0o6000) !== 0;
  });
}

const fds = suite('exec inherits no descriptor (issue 34, item 1)');

fds(
  'with the event log open in this process, a command sees stdin, stdout and stderr only, with isolation bwrap and off',
  async () => {
    const f = toolsFixture();
    // lmdb opens data.mdb read-write without close-on-exec: the handle the attack found.
    const log = EventLog.open(join(f.root, 'sessions'));
    try {
      for (const isolation of ['bwrap', 'off'] as IsolationMode[]) {
        const g = toolsFixture(() => ({ exec: { isolation } }));
        // `ls` lists its own handle on the folder as 3.
        assert.equal(
          await g.call('exec', { command: `ls ${hidden('/proc/self/fd')}` }),
          { ok: true, content: '0\n1\n2\n3\n' },
          isolation,
        );
        g.close();
      }
    } finally {
      await log.close();
      f.close();
    }
  },
);

/** The attack: find the log's handle through /proc/self/fd, and pwrite over a message's text. */
const FORGER = [
  'import os',
  'old = b"ORIGINAL" + b"-WORDS"',
  'handle = None',
  'for name in os.listdir("/proc/self/fd"):',
  '    try:',
  '        if os.readlink("/proc/self/fd/" + name).endswith("data.mdb"): handle = int(name)',
  '    except OSError:',
  '        pass',
  'if handle is None:',
  '    print("no handle")',
  'else:',
  '    data = os.pread(handle, os.fstat(handle).st_size, 0)',
  '    at = data.find(old)',
  '    while at >= 0:',
  '        os.pwrite(handle, b"FORGED" + b"!!-WORDS", at)',
  '        at = data.find(old, at + 1)',
  '    print("forged")',
].join('\n');

fds(
  'the log attack through a real turn: the command finds no handle, and tern log shows the message as it was sent',
  async () => {
    const home = tempHome();
    const vendor = await startVendorServer();
    try {
      writeConfig(home.home, vendor.url, { tools: { exec: { isolation: 'bwrap' } } });
      const call = {
        id: 'c1',
        type: 'function' as const,
        function: { name: 'exec', arguments: JSON.stringify({ command: `python3 -c '${FORGER}'` }) },
      };
      vendor.reply(completion({ tool_calls: [call] }, 'tool_calls'), completion({ content: 'Done.' }));
      const turn = await runCliAsync(['agent', '-m', 'please keep ORIGINAL-WORDS'], home.env);
      assert.equal(turn, { code: 0, stdout: 'Done.\n', stderr: '' });
      const toolResult = (
        JSON.parse(vendor.requests[1]!.body.toString()) as { messages: Array<{ content: string }> }
      ).messages.at(-1);
      assert.is(toolResult?.content, 'no handle\n');
      const log = await runCliAsync(['log', '--json'], home.env);
      const events = log.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; data: { text?: string } });
      assert.equal(
        events.filter((e) => e.type === 'message.routed').map((e) => e.data.text),
        ['please keep ORIGINAL-WORDS'],
      );
      assert.not.match(log.stdout, 'FORGED!!-WORDS');
    } finally {
      await vendor.close();
      home.remove();
    }
  },
);
fds.run();

const user = suite('exec runs as an unprivileged user with limits (issue 34, item 4)');

user(
  'inside, an unprivileged uid in a user namespace: no capabilities, no further namespace, /etc/shadow unreadable',
  async () => {
    const f = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
    const command =
      `exec 2>&1; id -u; grep CapEff ${hidden('/proc/self/status')}; unshare -U true || ` +
      `echo refused; cat ${hidden('/etc/shadow')} ${hidden('/etc/gshadow')}; echo end`;
    assert.equal(await f.call('exec', { command }), {
      ok: true,
      content:
        `${insideUid}\nCapEff:\t0000000000000000\nunshare: unshare failed: No space left on device\n` +
        `refused\ncat: /etc/shadow: Permission denied\ncat: /etc/gshadow: Permission denied\nend\n`,
    });
    f.close();
  },
);

user(
  'no file the sandbox makes keeps a setuid or setgid bit, and on the host it belongs to the gateway user',
  async () => {
    const f = toolsFixture(() => ({ exec: { isolation: 'bwrap' } }));
    const attempts = [
      'cp "$(command -v python3)" py3 && chmod 4755 py3',
      'chmod u+s py3',
      'chmod g+s py3',
      'install -m 6755 "$(command -v true)" t2',
      'python3 -c "import os; os.close(os.open(\\"t3\\", os.O_CREAT | os.O_WRONLY, 0o4755))"',
      'python3 -c "import os; os.mknod(\\"t4\\", 0o104755)"',
      'mkdir d && chmod 2775 d',
      'python3 -c "import os; os.chmod(\\"py3\\", 0o6755)"',
    ];
    const command = attempts.map((attempt, i) => `(${attempt}) 2>/dev/null || echo "refused ${i}"`).join('; ');
    assert.equal(await f.call('exec', { command }), {
      ok: true,
      content: attempts.map((_, i) => `refused ${i}\n`).join(''),
    });
    assert.equal(setIdFiles(f.workspace), []);
    assert.is(statSync(join(f.workspace, 'py3')).uid, process.getuid!());
    f.close();
  },
);

user('limits: 2,000 forks fail, a 3 GB allocation fails, a file stops at file_size_mb', async () => {
  const f = toolsFixture(() => ({
    exec: { isolation: 'bwrap', limits: { processes: 256, memoryBytes: 1024 ** 3, fileSizeBytes: 1024 ** 2 } },
  }));
  const forks = 'i=0; while [ $i -lt 2000 ]; do sleep 20.42461 & i=$((i+1)); done; echo "started $i"';
  assert.equal(await f.call('exec', { command: forks, timeout_seconds: 30 }), {
    ok: false,
    content: 'sh: 0: Cannot fork\n\n[exec: exit code 2]',
  });
  assert.equal(straysTagged('20.42461'), []);
  assert.equal(await f.call('exec', { command: 'python3 -c "bytearray(3 * 1024 ** 3)" 2>&1 | tail -1' }), {
    ok: true,
    content: 'MemoryError\n',
  });
  assert.equal(await f.call('exec', { command: 'head -c 3M /dev/zero > big; echo $?; wc -c < big' }), {
    ok: true,
    content: 'File size limit exceeded\n153\n1048576\n',
  });
  f.close();
});
user.run();

let loopback: Server;
let outside: Server | undefined;
/**
 * A non-loopback address of this machine: what the internet is to the sandbox here (slirp4netns connects out through
 * it).
 */
const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

const net = suite('exec network (issue 34, item 5)');
net.before(async () => {
  loopback = createServer((_req, res) => res.end('loopback service'));
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
  if (external) {
    outside = createServer((_req, res) => res.end('outside service'));
    await new Promise<void>((resolve) => outside!.listen(0, external, resolve));
  }
});
net.after(async () => {
  await new Promise<void>((resolve) => loopback.close(() => resolve()));
  if (outside) await new Promise<void>((resolve) => outside!.close(() => resolve()));
});

const port = (server: Server) => (server.address() as AddressInfo).port;
const get = (url: string) => `echo "$(curl -s -m 3 ${url} || echo unreachable)"`;

net(
  'the host loopback is unreachable from the sandbox; the outside is reachable with network true, and cut with false',
  async () => {
    const targets = [
      `http://127.0.0.1:${port(loopback)}/`,
      `http://localhost:${port(loopback)}/`,
      `http://10.0.2.2:${port(loopback)}/`,
    ];
    const reachable = external ? [`http://${external}:${port(outside!)}/`] : [];
    const command = [...targets, ...reachable].map(get).join('; ');
    for (const [network, expected] of [
      [true, 'outside service'],
      [false, 'unreachable'],
    ] as const) {
      const f = toolsFixture(() => ({ exec: { isolation: 'bwrap', network } }));
      const content = [...targets.map(() => 'unreachable'), ...reachable.map(() => expected)]
        .map((line) => `${line}\n`)
        .join('');
      assert.equal(await f.call('exec', { command }), { ok: true, content }, `network ${network}`);
      f.close();
    }
    // What the test stands on: the same requests from here reach both services.
    assert.is(await (await fetch(targets[0]!)).text(), 'loopback service');
  },
);
net.run();

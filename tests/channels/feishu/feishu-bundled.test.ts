// The built `tern` inlines Feishu's SDK (adapters/cli/bundle.mjs): its one 6 MB file with Chinese doc comments would
// otherwise sit in memory as a 12 MB two-byte string. A gateway run by the built bin connects Feishu through the
// inlined SDK, answers a message, and loads no part of the SDK from node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../../support/cli.js';
import { startGatewayModel } from '../../support/gateway-model.js';
import { modelEntry } from '../../support/gateway-process.js';
import { freePort } from '../../support/telegram-emulator.js';
import { tempHome } from '../../support/temp-home.js';
import { FeishuContractEmulator } from './feishu-contract-emulator.js';

/** Records every ES module the process loads (a package's entry from node_modules among them) into `list`. */
function loadHooks(dir: string, list: string): string {
  const hook = [
    "import { appendFileSync } from 'node:fs';",
    `export async function load(url, context, next) { appendFileSync(${JSON.stringify(list)}, url + '\\n');`,
    '  return next(url, context); }',
  ].join('\n');
  const file = join(dir, 'record.mjs');
  const source = `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  writeFileSync(file, `import { register } from 'node:module';\n${source}\n`);
  writeFileSync(list, '');
  return file;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('the built gateway answers on Feishu through the inlined SDK, loading none of it from node_modules', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tern-feishu-bundle-'));
  const home = tempHome();
  const model = await startGatewayModel();
  const feishu = await FeishuContractEmulator.start();
  try {
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
    const out = join(root, 'dist', 'adapters', 'cli');
    const built = spawnSync(process.execPath, [join(repoRoot, 'adapters', 'cli', 'bundle.mjs'), out], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.is(built.status, 0, built.stderr);
    mkdirSync(home.home, { recursive: true });
    const port = await freePort();
    const entry = { enabled: true, type: 'feishu', settings: { ...feishu.settings(), allow_from: ['*'] } };
    writeFileSync(
      join(home.home, 'config.json'),
      JSON.stringify({
        version: 2,
        gateway: { host: '127.0.0.1', port },
        agents: { defaults: { model: 'fast' } },
        model_list: [modelEntry(model.url)],
        heartbeat: { enabled: false },
        channel_list: { feishu: entry },
      }),
    );
    const list = join(root, 'loaded.txt');
    const args = ['--import', loadHooks(root, list), join(out, 'main.js'), 'gateway'];
    const gateway = spawn(process.execPath, args, { env: home.env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => gateway.once('exit', resolve));
    try {
      await until('the Feishu channel connecting', async () => {
        const ready = (await fetch(`http://127.0.0.1:${port}/ready`).then(
          (r) => r.json(),
          () => undefined,
        )) as { channels?: Array<{ state: string }> } | undefined;
        return ready?.channels?.[0]?.state === 'connected' ? true : undefined;
      });
      const chat = feishu.direct('Mei');
      await chat.say('hello from the bundle');
      const sent = await until('a reply', () => (chat.sent().length > 0 ? chat.sent() : undefined));
      assert.equal(
        sent.map((m) => m.text),
        ['echo: hello from the bundle'],
      );
      const fromNodeModules = readFileSync(list, 'utf8')
        .split('\n')
        .filter((url) => url.includes('/node_modules/@larksuiteoapi/'));
      assert.equal(fromNodeModules, []);
    } finally {
      gateway.kill('SIGINT');
      await exited;
    }
  } finally {
    await feishu.close();
    await model.close();
    home.remove();
    rmSync(root, { recursive: true, force: true });
  }
});

test.run();

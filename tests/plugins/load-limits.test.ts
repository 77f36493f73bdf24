// #34 item 12 and #35 item 8: a plugin whose load hangs is failed after plugins.activate_timeout_ms and the others
// load; a plugin that failed is not loaded again (and waited for) on every run until its files or its entry change.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, runCliAsync } from '../support/cli.js';
import { weatherPlugin, writePlugin } from '../support/plugin-fixtures.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const test = suite<{ home: TempHome; vendor: VendorServer }>('plugin load limits');

test.before.each(async (context) => {
  context.home = tempHome();
  context.vendor = await startVendorServer();
});

test.after.each(async ({ home, vendor }) => {
  await vendor.close();
  home.remove();
});

type Row = { name: string; state: string; reason?: string };
const RETRY_NOTE = 'it failed like this before; Tern loads it again when its files or its plugins entry change';
const installed = (home: TempHome, name: string) => join(home.home, 'plugins', 'node_modules', name);

/** The loopback model, and these plugin entries with this load limit (the default: 10 s). */
function configure(home: TempHome, vendor: VendorServer, entries: Record<string, unknown>, limitMs = 10_000): void {
  writeConfig(home.home, vendor.url, { blocks: { plugins: { activate_timeout_ms: limitMs, entries } } });
}

function listed(home: TempHome): Row[] {
  const { code, stdout, stderr } = runCli(['plugins', 'list', '--json'], home.env);
  assert.is(code, 0, stderr);
  return (JSON.parse(stdout) as { plugins: Array<Row & { path: string; version: string }> }).plugins.map(
    ({ name, state, reason }) => ({ name, state, ...(reason ? { reason } : {}) }),
  );
}

const manifest = (name: string, entry: string) => ({ name, version: '1.0.0', entry, capabilities: ['tools'] });

test('a load past the limit fails; the plugins after it load; tern agent still answers', async ({ home, vendor }) => {
  writePlugin(installed(home, 'a-hang'), manifest('a-hang', 'index.js'), {
    'index.js': 'export default function activate() { return new Promise(() => {}); }\n',
  });
  const silent = { 'main.js': 'setInterval(() => {}, 1000);\n' };
  writePlugin(installed(home, 'b-silent'), manifest('b-silent', 'main.js'), silent);
  weatherPlugin(installed(home, 'weather'));
  const weather = { trusted: true, config: { unit: 'C' } };
  configure(home, vendor, { 'a-hang': { trusted: true }, 'b-silent': {}, weather }, 500);

  const hang = 'its import and activate did not finish within 500 ms (plugins.activate_timeout_ms)';
  const quiet = 'it did not answer plugin.hello within 500 ms (plugins.activate_timeout_ms)';
  assert.equal(listed(home), [
    { name: 'a-hang', state: 'failed', reason: hang },
    { name: 'b-silent', state: 'failed', reason: quiet },
    { name: 'weather', state: 'ready' },
  ]);

  vendor.reply(completion({ content: 'Hello from the model.' }));
  const turn = await runCliAsync(['agent', '-m', 'hi'], home.env);
  assert.equal(turn, { code: 0, stdout: 'Hello from the model.\n', stderr: '' });
  const again = listed(home).map((row) => row.reason);
  assert.equal(again, [`${hang} (${RETRY_NOTE})`, `${quiet} (${RETRY_NOTE})`, undefined]);
});

test('a plugin that fails is started once, then not again until its files change', ({ home, vendor }) => {
  const dir = installed(home, 'crashy');
  const starts = join(home.home, 'starts.log');
  const crashing = `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(starts)}, 'start\\n');
throw new Error('cannot start: no settings');
`;
  writePlugin(dir, manifest('crashy', 'main.js'), { 'main.js': crashing });
  configure(home, vendor, { crashy: {} });

  const reason = 'exited with code 1: Error: cannot start: no settings (main.js:3)';
  assert.equal(listed(home), [{ name: 'crashy', state: 'failed', reason }]);
  assert.is(readFileSync(starts, 'utf8'), 'start\n', 'a process that dies before plugin.hello is not restarted');
  const file = join(home.home, 'plugin-failures.json');
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.equal(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object), ['crashy']);

  assert.equal(listed(home), [{ name: 'crashy', state: 'failed', reason: `${reason} (${RETRY_NOTE})` }]);
  assert.is(readFileSync(starts, 'utf8'), 'start\n', 'a failed plugin is not started again on every run');

  // Its entry changes: tried again (and fails again, once).
  configure(home, vendor, { crashy: { priority: 5 } });
  assert.equal(listed(home), [{ name: 'crashy', state: 'failed', reason }]);
  assert.is(readFileSync(starts, 'utf8'), 'start\nstart\n');

  // Its files change (fixed): it loads, and its record is gone.
  writeFileSync(
    join(dir, 'main.js'),
    `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method } = JSON.parse(line);
  const result = method === 'plugin.hello' ? {} : null;
  if (id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
});
`,
  );
  assert.equal(listed(home), [{ name: 'crashy', state: 'ready' }]);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')), {});
});

test.run();

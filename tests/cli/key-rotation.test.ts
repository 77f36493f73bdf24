import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliAsync as tern } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const KEYS = ['sk-rotate-key-0001', 'sk-rotate-key-0002', 'sk-rotate-key-0003'];

const test = suite<{ home: TempHome; vendor: VendorServer }>('api_keys rotate across tern agent runs');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.vendor = await startVendorServer();
});
test.after.each(async (ctx) => {
  await ctx.vendor.close();
  ctx.home.remove();
});

function writeModels(home: string, entries: Array<Record<string, unknown>>): void {
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ version: 2, agents: { defaults: { model: 'fast' } }, model_list: entries }),
    { mode: 0o600 },
  );
}

const keysUsed = (vendor: VendorServer): string[] =>
  vendor.requests.map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));

test('each one-shot run starts at the key after the one the previous run used, wrapping round', async ({
  home,
  vendor,
}) => {
  writeModels(home.home, [
    { model_name: 'fast', provider: 'openai', model: 'gpt-test', api_base: `${vendor.url}/v1`, api_keys: KEYS },
  ]);
  for (let run = 0; run < 4; run++) {
    vendor.reply(completion({ content: `answer ${run}` }));
    assert.equal(await tern(['agent', '-m', `hi ${run}`], home.env), {
      code: 0,
      stdout: `answer ${run}\n`,
      stderr: '',
    });
  }
  assert.equal(keysUsed(vendor), [KEYS[0], KEYS[1], KEYS[2], KEYS[0]]);
  // The state file holds where the rotation stands, never a key.
  const state = readFileSync(join(home.workspace, 'state', 'key-rotation.json'), 'utf8');
  assert.equal(JSON.parse(state), { fast: { next_member: 0, next_key: [1] } });
  for (const key of KEYS) assert.not.match(state, key);
});

test('a pool of two entries takes turns across runs too, each entry with its own key cursor', async ({
  home,
  vendor,
}) => {
  writeModels(home.home, [
    {
      model_name: 'fast',
      provider: 'openai',
      model: 'gpt-a',
      api_base: `${vendor.url}/v1`,
      api_keys: [KEYS[0], KEYS[1]],
    },
    { model_name: 'fast', provider: 'openai', model: 'gpt-b', api_base: `${vendor.url}/v1`, api_keys: [KEYS[2]] },
  ]);
  for (let run = 0; run < 4; run++) {
    vendor.reply(completion({ content: 'ok' }));
    assert.is((await tern(['agent', '-m', 'hi'], home.env)).code, 0);
  }
  const used = vendor.requests.map((r) => {
    const model = (JSON.parse(r.body.toString()) as { model: string }).model;
    return `${model} ${String(r.headers.authorization).replace(/^Bearer /, '')}`;
  });
  assert.equal(used, [`gpt-a ${KEYS[0]}`, `gpt-b ${KEYS[2]}`, `gpt-a ${KEYS[1]}`, `gpt-b ${KEYS[2]}`]);
});

test('a damaged state file starts at the first key and is replaced by a good one', async ({ home, vendor }) => {
  writeModels(home.home, [
    { model_name: 'fast', provider: 'openai', model: 'gpt-test', api_base: `${vendor.url}/v1`, api_keys: KEYS },
  ]);
  mkdirSync(join(home.workspace, 'state'), { recursive: true });
  writeFileSync(join(home.workspace, 'state', 'key-rotation.json'), '{"fast": {"next_member": -1');
  vendor.reply(completion({ content: 'ok' }), completion({ content: 'ok' }));
  assert.is((await tern(['agent', '-m', 'hi'], home.env)).code, 0);
  assert.is((await tern(['agent', '-m', 'hi'], home.env)).code, 0);
  assert.equal(keysUsed(vendor), [KEYS[0], KEYS[1]]);
});

test.run();

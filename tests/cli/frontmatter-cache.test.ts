// A one-shot turn keeps what the front matter of AGENT.md and of the skills parsed to, so the next run on the same
// home loads no YAML library; an edited header is a new text and is parsed again.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureWorkspace } from '../../store/workspace.js';
import { runCliAsync } from '../support/cli.js';
import { tempHome, type TempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { startVendorServer, type VendorServer } from '../support/vendor-server.js';

const test = suite<{ home: TempHome; vendor: VendorServer }>('front matter cache');
test.before.each(async (ctx) => {
  ctx.home = tempHome();
  ctx.vendor = await startVendorServer();
  writeConfig(ctx.home.home, ctx.vendor.url);
  ensureWorkspace(ctx.home.workspace);
});
test.after.each(async (ctx) => {
  await ctx.vendor.close();
  ctx.home.remove();
});

/** One turn, with Node naming each CommonJS file it loads on stderr: whether the yaml package was one of them. */
async function turn(ctx: { home: TempHome; vendor: VendorServer }): Promise<{ code: number | null; yaml: boolean }> {
  ctx.vendor.reply(completion({ content: 'ok' }));
  const { code, stderr } = await runCliAsync(['agent', '-m', 'hi'], { ...ctx.home.env, NODE_DEBUG: 'module' });
  return { code, yaml: stderr.includes('/node_modules/yaml/') };
}

test('the second run loads no YAML library; an edited skill header is parsed and reaches the model', async (ctx) => {
  const skill = join(ctx.home.workspace, 'skills', 'packing');
  mkdirSync(skill, { recursive: true });
  const header = (description: string) => `---\nname: packing\ndescription: ${description}\n---\nPack light.\n`;
  writeFileSync(join(skill, 'SKILL.md'), header('lists what to pack'));
  assert.equal(await turn(ctx), { code: 0, yaml: true });
  assert.equal(await turn(ctx), { code: 0, yaml: false });

  writeFileSync(join(skill, 'SKILL.md'), header('lists what to pack for a trip'));
  assert.equal(await turn(ctx), { code: 0, yaml: true });
  const prompt = ctx.vendor.requests.at(-1)?.body.toString('utf8') ?? '';
  // The new description, and the old one nowhere else.
  assert.equal(
    [prompt.includes('lists what to pack for a trip'), prompt.split('lists what to pack').length],
    [true, 2],
  );
});

test.run();

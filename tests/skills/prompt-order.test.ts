// The skills catalog in the system prompt is in the same order whatever the host's locale: it followed
// `localeCompare`, so with LANG=lt_LT.UTF-8 (where `y` sorts with `i`) `yak` came before `jolly`, and two machines
// built two prompts from the same skill folders.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { runCliAsync } from '../support/cli.js';
import { skillMd } from '../support/skill-zips.js';
import { writeConfig } from '../support/turn-fixture.js';
import { completion } from '../support/vendor-chat-completions.js';
import { bodyOf } from '../support/vendor-server.js';
import { homeAndVendorSuite } from '../support/vendor-suite.js';

const test = homeAndVendorSuite('skills in the prompt');

test('the catalog is in code point order under a Lithuanian locale', async ({ home, vendor }) => {
  writeConfig(home.home, vendor.url);
  for (const name of ['yak', 'jolly', 'Zeta']) {
    mkdirSync(join(home.workspace, 'skills', name), { recursive: true });
    writeFileSync(join(home.workspace, 'skills', name, 'SKILL.md'), skillMd(name, `The ${name} skill`));
  }
  vendor.reply(completion({ content: 'Hello.' }));
  const locale = { LANG: 'lt_LT.UTF-8', LC_ALL: 'lt_LT.UTF-8' };
  const ran = await runCliAsync(['agent', '-m', 'hi'], { ...home.env, ...locale });
  assert.is(ran.code, 0, ran.stderr);
  const system = String((bodyOf(vendor.requests[0]) as { messages: Array<{ content: unknown }> }).messages[0]!.content);
  const names = /## Skills\n\n([^#]*)/
    .exec(system)?.[1]
    ?.trim()
    .split('\n')
    .map((line) => line.replace(/:.*$/, ''));
  assert.equal(names, ['- Zeta', '- daily-plan', '- jolly', '- summarize', '- weather', '- yak']);
});

test.run();

// The peer runtime's `tools.<tool>.enabled: false`: the tool is not offered to the model, on the wire.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../store/config/index.js';
import { completion } from '../support/vendor-chat-completions.js';
import { bodyOf } from '../support/vendor-server.js';
import { startTurnFixture } from '../support/turn-fixture.js';

const OFF = ['write_file', 'list_dir', 'web_fetch', 'find_skills', 'install_skill', 'edit_file'];

test(
  "tools switched off in the peer's shape are missing " + 'from the tools the vendor is sent, the others stay',
  async () => {
    const f = await startTurnFixture({ tools: Object.fromEntries(OFF.map((name) => [name, { enabled: false }])) });
    try {
      assert.equal(loadConfig({ env: f.home.env }).warnings, []);
      f.vendor.reply(completion({ content: 'done' }));
      await f.send('hi');
      const body = bodyOf(f.vendor.requests[0]) as { tools: Array<{ function: { name: string } }> };
      const names = body.tools.map((t) => t.function.name);
      assert.equal(
        OFF.filter((name) => names.includes(name)),
        [],
      );
      assert.ok(
        ['read_file', 'append_file', 'exec'].every((name) => names.includes(name)),
        names.join(', '),
      );
    } finally {
      await f.close();
    }
  },
);

test('by default the same tools are offered', async () => {
  const f = await startTurnFixture();
  try {
    f.vendor.reply(completion({ content: 'done' }));
    await f.send('hi');
    const body = bodyOf(f.vendor.requests[0]) as { tools: Array<{ function: { name: string } }> };
    const names = body.tools.map((t) => t.function.name);
    assert.equal(
      OFF.filter((name) => names.includes(name)),
      OFF,
    );
  } finally {
    await f.close();
  }
});

test.run();

import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Runtime } from '../../actors/runtime.js';
import { loadConfig } from '../../store/config/index.js';
import { repoRoot } from '../support/cli.js';
import { tempHome } from '../support/temp-home.js';
import { writeConfig } from '../support/turn-fixture.js';
import { startVendorServer } from '../support/vendor-server.js';

function killMidTurn(home: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/turn-child.ts', home], { cwd: repoRoot });
    let out = '';
    let turn = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /requested (\S+)/.exec(out);
      if (match && !turn) {
        turn = match[1]!;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', () =>
      turn ? resolve(turn) : reject(new Error(`child ended before the model was asked: ${out}`)),
    );
  });
}

test('a turn cut off by kill -9 is closed with turn.aborted when the runtime starts again', async () => {
  const home = tempHome();
  const vendor = await startVendorServer();
  vendor.reply({ status: 200, headers: { 'content-type': 'application/json' }, chunks: [], after: 'stall' });
  writeConfig(home.home, vendor.url);
  try {
    const turn = await killMidTurn(home.home);
    const runtime = Runtime.start({ loaded: loadConfig({ env: home.env }), env: home.env, command: 'test' });
    assert.equal(runtime.cutOffTurns, [turn]);
    await runtime.log.flushed();
    const events = runtime.log
      .read({ turn })
      .map((e) => e.type)
      .filter((t) => t !== 'actor.transitioned');
    assert.equal(events, ['turn.started', 'prompt.built', 'provider.requested', 'turn.aborted']);
    await runtime.close();
    const again = Runtime.start({ loaded: loadConfig({ env: home.env }), env: home.env, command: 'test' });
    assert.equal(again.cutOffTurns, [], 'a closed turn is not closed twice');
    await again.close();
  } finally {
    await vendor.close();
    home.remove();
  }
});

test.run();

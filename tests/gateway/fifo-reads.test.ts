// Issue #34, item 7, against a real `tern gateway`: five chats have the model read FIFOs nobody writes. Each gets a
// refusal at once, a sixth chat's ordinary read still completes (no libuv thread is stuck), and SIGTERM ends the
// process.
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { specialFileMessage } from '../../adapters/tools/sandbox/refusals.js';
import { homeWithWorkspace, startChatGateway } from '../support/chat-gateway.js';
import { startRuleModel } from '../support/rule-model.js';
import { TelegramEmulator } from '../support/telegram-emulator.js';

const TOKEN = '555555:fifo-reads-token-EEEE';
const USERS = [2001, 2002, 2003, 2004, 2005];
const READER = 2006;

test('five read_file calls on FIFOs are refused, a sixth chat reads its file, SIGTERM ends the gateway', async () => {
  const model = await startRuleModel((request) => {
    if (request.last === 'tool') return { text: `result: ${request.toolResult}` };
    const fifo = /^FIFO (\d+)/.exec(request.user);
    if (fifo) return { calls: [{ name: 'read_file', arguments: { path: `pipes/fifo-${fifo[1]}` } }] };
    return { calls: [{ name: 'read_file', arguments: { path: 'plain.txt' } }] };
  });
  const emulator = await TelegramEmulator.start();
  const home = homeWithWorkspace();
  const { workspace } = home;
  mkdirSync(join(workspace, 'pipes'));
  for (const user of USERS) assert.is(spawnSync('mkfifo', [join(workspace, 'pipes', `fifo-${user}`)]).status, 0);
  writeFileSync(join(workspace, 'plain.txt'), 'plain text\n');
  const users = [...USERS, READER];
  const gateway = await startChatGateway({ home, modelUrl: model.url, emulatorUrl: emulator.url, token: TOKEN, users });
  try {
    for (const user of USERS) await emulator.say(TOKEN, `FIFO ${user}`, { userId: user });
    for (const user of USERS) {
      const [reply] = await emulator.waitForBotMessages(TOKEN, user, 1);
      assert.is(reply?.text, `result: ${specialFileMessage(`pipes/fifo-${user}`)}`);
    }
    await emulator.say(TOKEN, 'PLAIN', { userId: READER });
    const [plain] = await emulator.waitForBotMessages(TOKEN, READER, 1);
    assert.is(plain?.text, 'result: plain text');

    const exited = once(gateway.child, 'exit');
    gateway.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 20_000)));
    const outcome = await Promise.race([exited, late]);
    clearTimeout(timer);
    assert.equal(outcome, [0, null], 'the gateway exits on SIGTERM');
  } finally {
    if (gateway.child.exitCode === null && gateway.child.signalCode === null) await gateway.kill();
    await emulator.stop();
    await model.close();
    gateway.home.remove();
  }
});

test.run();

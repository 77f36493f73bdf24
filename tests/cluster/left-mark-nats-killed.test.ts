// A reply part's `left` mark lost with the NATS server (#40), with real `tern gateway --cluster` processes on a real
// nats-server and the Telegram emulator. The member holding the bot reaches NATS through a proxy that drops the mark's
// bytes (and all after them) while its request reaches the chat; the server is killed with the mark unacknowledged,
// the member is killed before it could reconnect and write the mark again, and the server starts again. The other
// member takes the bot over and reads the part as only `leaving`, stored by a server that has started again since:
// the part may have left and is not sent again. Before the fix it was: the chat got the answer twice.
import * as assert from 'uvu/assert';
import { markSuite, twoMembers } from '../support/cluster-mark-members.js';

const TOKEN = '744447:left-mark-nats-killed-GGGG';
const USER = 7201;

const { test, suite } = markSuite("a reply part's left mark lost with the NATS server, its member killed");

test('the member taking the bot over does not send again the part whose left mark the server lost', async (context) => {
  const { server } = context;
  const { emulator, writer, heirLog, settled, replyWithLeftMarkDropped, heirHolds, heirAnswers, close } =
    await twoMembers(context, TOKEN);
  try {
    await replyWithLeftMarkDropped(USER, 'm0');
    await server.kill9();
    // The server is down: node-a cannot reconnect before it dies.
    await writer.kill();
    await server.restart();
    await heirHolds();
    await heirAnswers(USER + 1, 'm1');
    assert.equal(
      emulator.botMessages(TOKEN, USER).map((m) => m.text),
      ['echo: m0'],
    );
    assert.equal(
      emulator.botMessages(TOKEN, USER + 1).map((m) => m.text),
      ['echo: m1'],
    );
    const log = heirLog();
    assert.equal(settled().length, 1, log.join('\n'));
    assert.match(settled()[0]!, / gateway=node-a .*heard=gone .*left=0 server_restarted=1/);
    assert.ok(log.some((line) => line.startsWith('WARN a reply part was being sent when the process ended')));
  } finally {
    await close();
  }
});

suite.run();

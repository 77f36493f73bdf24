// A reply part's `left` mark lost on its way to NATS while its request reached the platform (#40), with real
// `tern gateway --cluster` processes on a real nats-server and the Telegram emulator. The member holding the bot
// reaches NATS through a proxy that drops the mark's bytes (and all after them), then splits the member off as a path
// that drops packets would: the member sees its connection fail, the server keeps it open. The lease moves to the other
// member, which reads the part as only `leaving`; it must not send it again before the member that sent it could say
// whether it left. Before the fix it sent it: the chat got the answer twice.
import * as assert from 'uvu/assert';
import { markSuite, twoMembers } from '../support/cluster-mark-members.js';

const TOKEN = '744446:left-mark-lost-FFFF';
const USER = 7101;

const { test, suite } = markSuite("a reply part's left mark lost on its way, then a split");

test('the member taking the bot over does not send again a part whose left mark was lost', async (context) => {
  const { emulator, proxy, tg1, heirLog, settled, replyWithLeftMarkDropped, heirHolds, heirAnswers, close } =
    await twoMembers(context, TOKEN);
  try {
    await replyWithLeftMarkDropped(USER, 'm0');
    proxy.split();
    await heirHolds();
    proxy.heal();
    // node-b runs tg1 now: a message after the split is answered by it.
    await heirAnswers(USER + 1, 'm1');
    assert.equal(
      emulator.botMessages(TOKEN, USER).map((m) => m.text),
      ['echo: m0'],
    );
    assert.equal(
      emulator.botMessages(TOKEN, USER + 1).map((m) => m.text),
      ['echo: m1'],
    );
    // node-b asked node-a, which answered once its mark was stored again.
    const log = heirLog();
    assert.equal(settled().length, 1, log.join('\n'));
    assert.match(settled()[0]!, / gateway=node-a .*heard=answered .*left=1/);
    // The part is accounted for: node-a's own `message.sent`, stored when it reconnected if that came before
    // node-b read the stream, or else node-b's warning that the part may have left.
    const recorded = tg1
      .read({ type: 'message.sent' })
      .some((e) => e.gateway === 'node-a' && (e.data as { chat: string }).chat === `direct:${USER}`);
    const warned = log.some((line) => line.startsWith('WARN a reply part was being sent when the process ended'));
    assert.ok(recorded || warned, `recorded=${recorded} warned=${warned}\n${log.join('\n')}`);
  } finally {
    await close();
  }
});

suite.run();

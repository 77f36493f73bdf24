// A reply part's `left` mark lost in a split whose member is killed before it reconnects (#40), with real
// `tern gateway --cluster` processes on a real nats-server and the Telegram emulator. The member holding the bot
// reaches NATS through a proxy that drops the mark's bytes (and all after them) while its request reaches the chat,
// then splits it off (the server keeps its end open); the member is killed there, its mark only in its memory and its
// file. The other member takes the bot over and waits for the killed one, which the server still lists; started again
// on its home, the killed member writes the mark from its file first and then answers: the part is not sent again.
// Before the fix it started with nothing to write, answered at once, and the part went out twice.
import * as assert from 'uvu/assert';
import { markSuite, twoMembers } from '../support/cluster-mark-members.js';
import { until } from '../support/eventually.js';
import { startGatewayProcess } from '../support/gateway-process.js';

const TOKEN = '744448:left-mark-killed-split-HHHH';
const USER = 7301;

const { test, suite } = markSuite("a reply part's left mark lost in a split, its member killed before it reconnects");

test(
  'started again on its home, the killed member writes the lost mark first; ' + 'the part is sent once',
  async (context) => {
    const { server } = context;
    const members = await twoMembers(context, TOKEN);
    const { emulator, proxy, writer, config, heirLog, settled, close } = members;
    try {
      await members.replyWithLeftMarkDropped(USER, 'm0');
      proxy.split();
      await writer.kill();
      await members.heirHolds();
      const said = (text: string) => () => (heirLog().some((line) => line.includes(text)) ? true : undefined);
      await until('node-b to ask node-a', said('parts marked leaving only; asking'), 60_000);
      // Straight to the server this time: the split still holds node-a's old connection open there.
      const again = await startGatewayProcess(await config('node-a', server.url), {}, writer.home);
      context.gateways.push(again);
      await until('node-b to hear from node-a', said('parts marked leaving only are settled'), 60_000);
      proxy.heal();
      await members.heirAnswers(USER + 1, 'm1');
      assert.equal(
        emulator.botMessages(TOKEN, USER).map((m) => m.text),
        ['echo: m0'],
      );
      assert.equal(
        emulator.botMessages(TOKEN, USER + 1).map((m) => m.text),
        ['echo: m1'],
      );
      assert.equal(settled().length, 1, heirLog().join('\n'));
      assert.match(settled()[0]!, / gateway=node-a .*heard=answered .*left=1/);
    } finally {
      await close();
    }
  },
);

suite.run();

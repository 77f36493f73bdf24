// A reply part's marks and its request (#40) when the member holding the bot is killed in between, with real
// `tern gateway --cluster` processes on a real nats-server and the Telegram emulator; the member holding the bot
// reaches NATS through a proxy. First: the proxy lets the first bytes carrying a mark (and all after them) go nowhere,
// as a publish still on its way when the member is killed (the second cause of the chaos run's doubles: the part's
// request was written while its mark was on its way, and the member taking the bot over sent it again). Second: the
// server stores the part's first mark and its answer never comes back, so the member is killed before the request is
// written (chaos8's mark, stored before the request, made the member taking over take the part as maybe sent: lost).
import * as assert from 'uvu/assert';
import { Kvm } from '@nats-io/kv';
import { SEND_MARKS_BUCKET } from '../../store/cluster/send-marks.js';
import { markSuite, twoMembers } from '../support/cluster-mark-members.js';
import { until } from '../support/eventually.js';

const TOKEN = '744445:mark-before-send-EEEE';
const USER = 7002;

const { test, suite } = markSuite("a reply part's mark lost on its way to NATS");

test(
  'the member killed with its mark on the way sent nothing; ' + 'the member taking over sends the part once',
  async (context) => {
    const { emulator, proxy, writer, sentBy, close } = await twoMembers(context, TOKEN);
    try {
      const held = proxy.holdSent(`$KV.${SEND_MARKS_BUCKET}.`);
      await emulator.say(TOKEN, 'm0', { userId: USER });
      await held;
      await writer.kill();
      await sentBy('node-b', 'node-b to take tg1 over and send the part');
      assert.equal(
        emulator.botMessages(TOKEN, USER).map((m) => m.text),
        ['echo: m0'],
      );
    } finally {
      await close();
    }
  },
);

test(
  'the member killed after its mark was stored, before its request was written: ' +
    'the member taking over sends the part once',
  async (context) => {
    const { emulator, proxy, nc, writer, sentBy, heirLog, close } = await twoMembers(context, TOKEN);
    try {
      const marks = await until(
        'the marks bucket',
        () => new Kvm(nc).open(SEND_MARKS_BUCKET, { bindOnly: true }).catch(() => undefined),
        60_000,
      );
      const held = proxy.holdAnswersAfter(`$KV.${SEND_MARKS_BUCKET}.`);
      await emulator.say(TOKEN, 'm1', { userId: USER + 1 });
      await held;
      // The server has the mark; node-a waits for its answer and has not written the request.
      const stored = async (): Promise<true | undefined> => {
        for await (const _ of await marks.keys()) return true;
        return undefined;
      };
      await until('the mark stored', stored, 30_000);
      await writer.kill();
      await sentBy('node-b', 'node-b to take tg1 over and send the part', `direct:${USER + 1}`);
      assert.equal(
        emulator.botMessages(TOKEN, USER + 1).map((m) => m.text),
        ['echo: m1'],
      );
      // Only `leaving` was stored: node-b asked node-a first, and sent the part once node-a was gone from the server.
      const settled = heirLog().filter((line) => line.includes('parts marked leaving only are settled'));
      assert.equal(settled.length, 1, heirLog().join('\n'));
      assert.match(settled[0]!, / gateway=node-a .*heard=gone .*left=0 server_restarted=0/);
    } finally {
      await close();
    }
  },
);

suite.run();

// The cluster's chaos run in short (#40 item 3; `bench/chaos.ts` runs it for minutes): three `tern gateway --cluster`
// members on a real nats-server, one Telegram bot on the emulator, 30 chats sending; the member holding the bot is
// killed with SIGKILL while its reply parts are leaving (the emulator holds their answers until it is dead) and
// started again, then the member holding the bot is cut off from NATS through its TCP proxy for two lease TTLs.
// No answer comes twice, each chat's answers come in order, and every message is answered but those whose part was
// marked as leaving (its mark stored before its request, #40) when its member was killed or cut off: the member taking
// the bot over names each as maybe sent and does not send it again. How many those are is printed, not asserted.
import * as assert from 'uvu/assert';
import { runChaos } from '../support/chaos-run.js';
import { natsAvailable } from '../support/nats-server.js';
import { test } from 'uvu';

test.skip('a kill while parts leave and a partition: none lost but parts named maybe sent, 0 doubles, chats in order [skipped: #40]', async () => {
  if (!natsAvailable()) return;
  const result = await runChaos({
    durationMs: 20_000,
    chats: 30,
    perChat: 3,
    killEveryMs: 6_000,
    victims: 'holder',
    partitionAt: 0.5,
    natsRestart: false,
    ttlMs: 3_000,
    settleMs: 90_000,
  });
  const kills = result.kills.filter((k) => k.heldBot && k.partsLeaving > 0);
  assert.ok(kills.length > 0, `no kill landed while parts were leaving: ${JSON.stringify(result.kills)}`);
  assert.ok(result.partitioned !== undefined, 'no member was cut off');
  process.stdout.write(`chaos: ${result.lost} of 90 answers missing, each a part named maybe sent\n`);
  const { messages, lostUndeclared, doubles, outOfOrder } = result;
  assert.equal(
    { messages, lostUndeclared, doubles, outOfOrder },
    { messages: 90, lostUndeclared: 0, doubles: 0, outOfOrder: 0 },
  );
});

test.run();

// The cluster's chaos run in short (#40 item 3; `bench/chaos.ts` runs it for minutes): three `tern gateway --cluster`
// members on a real nats-server, one Telegram bot on the emulator, 30 chats sending; the member holding the bot is
// killed with SIGKILL while a reply part of it is leaving (the emulator holds the answers to its sends and the kill
// waits until one is held, then lands) and started again, then the member holding the bot is cut off from NATS through
// its TCP proxy for two lease TTLs. Every message is answered exactly once and each chat's answers come in order: a
// part whose request was written is marked `left` before it, and the member taking the bot over sends exactly the parts
// with no such mark.
import * as assert from 'uvu/assert';
import { runChaos } from '../support/chaos-run.js';
import { natsAvailable } from '../support/nats-server.js';
import { test } from 'uvu';

test('a kill while a part leaves and a partition: 0 lost, 0 doubles, chats in order', async () => {
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
  process.stderr.write(`chaos: ${JSON.stringify(result)}\n`);
  const kills = result.kills.filter((k) => k.heldBot && k.partsLeaving > 0);
  assert.ok(kills.length > 0, `no kill landed while parts were leaving: ${JSON.stringify(result.kills)}`);
  assert.ok(result.partitioned !== undefined, 'no member was cut off');
  const { messages, lost, doubles, outOfOrder } = result;
  assert.equal({ messages, lost, doubles, outOfOrder }, { messages: 90, lost: 0, doubles: 0, outOfOrder: 0 });
});

test.run();

// The cluster's chaos run (#40 item 3, `tests/support/chaos-run.ts`) from the command line, and its `npm run bench`
// rows from a short run:
//
//   node --import tsx bench/chaos.ts [--minutes 5] [--chats 200] [--per-chat 10] [--kill-every-s 20]
import { parseArgs } from 'node:util';
import { runChaos } from '../tests/support/chaos-run.js';
import { natsAvailable } from '../tests/support/nats-server.js';
import type { BenchRow } from './row.js';

/** `npm run bench` rows from a short run: 40 s, 40 chats, the bot's holder killed while its parts leave. */
export async function bench(): Promise<BenchRow[]> {
  if (!natsAvailable()) return [];
  const result = await runChaos({ durationMs: 40_000, chats: 40, perChat: 5, killEveryMs: 10_000, victims: 'holder' });
  return [
    { name: 'cluster.chaos_lost', value: result.lost, unit: 'messages' },
    { name: 'cluster.chaos_lost_undeclared', value: result.lostUndeclared, unit: 'messages' },
    { name: 'cluster.chaos_doubles', value: result.doubles, unit: 'messages' },
  ];
}

if (process.argv[1]?.endsWith('chaos.ts')) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '5' },
      chats: { type: 'string', default: '200' },
      'per-chat': { type: 'string', default: '10' },
      'kill-every-s': { type: 'string', default: '20' },
    },
  });
  const started = Date.now();
  const result = await runChaos({
    durationMs: Number(values.minutes) * 60_000,
    chats: Number(values.chats),
    perChat: Number(values['per-chat']),
    killEveryMs: Number(values['kill-every-s']) * 1000,
    log: (line) => process.stderr.write(`${Math.round((Date.now() - started) / 1000)} s: ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

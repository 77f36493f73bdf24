// The end of a chaos run (`chaos-run.ts`): waiting for the state to count, not for a time. First every chat's
// answers (woken by each message the bot sends), then the channel account's stream holding a `reply.delivered` for
// every message and no longer growing, with the bot's messages: a copy still on its way shows in one or the other.
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';
import { quietValue } from './quiet.js';
import type { TelegramEmulator } from './telegram-emulator.js';

/** Resolves once `done()` says so, checked at every message the bot sends, or at `deadline` (epoch ms). */
export function botSettled(emulator: TelegramEmulator, done: () => boolean, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(limit);
      emulator.server.off('AddedBotMessage', check);
      resolve();
    };
    const check = (): void => void (done() && finish());
    const limit = setTimeout(finish, Math.max(0, deadline - Date.now()));
    emulator.server.on('AddedBotMessage', check);
    check();
  });
}

/**
 * Resolves once the account's stream has a `reply.delivered` for `messages` messages and it and `sent()` (the bot's
 * messages) stopped changing, or at `deadline`. Its own connection: the run's may still be reconnecting after the
 * NATS server's restart.
 */
export async function streamSettled(
  url: string,
  account: string,
  messages: number,
  sent: () => number,
  deadline: number,
): Promise<void> {
  const nc = await connectCluster(url);
  try {
    const log = await JetStreamEventStore.open(nc, { ...accountLog(account), readOnly: true });
    try {
      const state = () => ({
        delivered: new Set(log.read({ type: 'reply.delivered' }).map((e) => (e.data as { key: string }).key)).size,
        seq: log.lastCommittedSeq(),
        sent: sent(),
      });
      const limitMs = Math.max(1, deadline - Date.now());
      await quietValue(
        () => {
          const now = state();
          // Not quiet until every reply is delivered: a changing value keeps `quietValue` reading.
          return now.delivered >= messages ? now : { ...now, at: Date.now() };
        },
        { limitMs },
      ).catch(() => undefined);
    } finally {
      log.close();
    }
  } finally {
    await nc.close();
  }
}

import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../store/logs/logger.js';

/** How often a member that is still cut off from NATS says so again. */
const STILL_DOWN_EVERY_MS = 30_000;

/**
 * Tells the gateway log about the member's connection to NATS: a WARN when it drops (and every 30 s while it stays
 * down: the connection keeps trying, and writes to the log wait for it), an INFO when it is back.
 */
export function watchConnection(nc: NatsConnection, logger: Logger): { stop(): void } {
  let lostAt: number | undefined;
  let reminder: NodeJS.Timeout | undefined;
  let stopped = false;
  void (async () => {
    for await (const status of nc.status()) {
      if (stopped) return;
      if (status.type === 'disconnect' && lostAt === undefined) {
        lostAt = Date.now();
        logger.warn('cluster: lost the connection to NATS; reconnecting, and the log waits for it', {
          server: status.server,
        });
        reminder = setInterval(() => {
          logger.warn('cluster: still no connection to NATS; reconnecting', {
            down_s: Math.round((Date.now() - lostAt!) / 1000),
          });
        }, STILL_DOWN_EVERY_MS);
        reminder.unref();
      } else if (status.type === 'reconnect' && lostAt !== undefined) {
        logger.info('cluster: connected to NATS again', {
          server: status.server,
          down_s: Math.round((Date.now() - lostAt) / 1000),
        });
        clearInterval(reminder);
        lostAt = undefined;
      }
    }
  })();
  return {
    stop: () => {
      stopped = true;
      clearInterval(reminder);
    },
  };
}

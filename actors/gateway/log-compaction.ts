import type { Config } from '../../store/config/index.js';
import { EventLog } from '../../store/log/event-log.js';
import type { EventStore } from '../../store/log/event-store.js';
import { lastCompactedAt } from '../../store/log/last-compacted.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Scheduler } from '../scheduler.js';

const HOUR_MS = 3_600_000;

export interface LogCompactionDeps {
  scheduler: Scheduler;
  config: () => Config;
  log: EventStore;
  logger: Logger;
}

/**
 * The gateway's compaction of its own log: `log.retention.compact_every_hours` after the last one (its `log.compacted`
 * in the log, else the log's first event), the retention runs as `tern log compact` would, while turns go on
 * (`compactLive`). The time comes from the log, not from the gateway's start: a gateway restarted more often than
 * that still compacts. A log that is not the workspace's lmdb (a cluster's stream) is left alone.
 */
export class LogCompaction {
  private timer: { cancel(): void } | undefined;
  private running: { done: Promise<void>; abort: AbortController } | undefined;
  /** When this process last tried: a compaction that failed (nothing recorded) waits a period before it tries again. */
  private tried = 0;

  constructor(private readonly deps: LogCompactionDeps) {}

  start(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const hours = this.deps.config().log.retention.compact_every_hours;
    if (hours === 0 || !(this.deps.log instanceof EventLog)) return;
    const log = this.deps.log;
    const every = hours * HOUR_MS;
    const now = this.deps.scheduler.now();
    const last = Math.max(lastCompactedAt(log) ?? now, this.tried);
    this.timer = this.deps.scheduler.after(Math.min(Math.max(last + every - now, 0), every), () => {
      this.tried = this.deps.scheduler.now();
      const abort = new AbortController();
      const done = this.compact(log, abort.signal).finally(() => {
        this.running = undefined;
        if (this.timer) this.start();
      });
      this.running = { done, abort };
    });
  }

  /**
   * Stops the schedule and ends a compaction under way before the log closes: its copy and its archive are abandoned
   * and removed (the log stays as it was), or, once the files are being swapped, the swap finishes.
   */
  stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    this.running?.abort.abort();
    return this.running?.done ?? Promise.resolve();
  }

  private async compact(log: EventLog, signal: AbortSignal): Promise<void> {
    const { retention } = this.deps.config().log;
    const now = new Date(this.deps.scheduler.now());
    try {
      // The compaction's code (and zlib, for the archive) loads when a compaction is due, not with every start.
      const [{ compactLive }, { retentionPlan }] = await Promise.all([
        import('../../store/log/live-compact.js'),
        import('../../store/log/compact.js'),
      ]);
      const result = await compactLive(log, retentionPlan(retention, now), now, signal);
      this.deps.logger.info('event log compacted', { ...result });
    } catch (error) {
      if (signal.aborted) this.deps.logger.info('event log compaction stopped with the gateway; the log is as it was');
      else this.deps.logger.warn('event log not compacted', { reason: (error as Error).message });
    }
  }
}

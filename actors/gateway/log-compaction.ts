import type { Config } from '../../store/config/index.js';
import { retentionPlan } from '../../store/log/compact.js';
import { EventLog } from '../../store/log/event-log.js';
import type { EventStore } from '../../store/log/event-store.js';
import { compactLive } from '../../store/log/live-compact.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Scheduler } from '../scheduler.js';

export interface LogCompactionDeps {
  scheduler: Scheduler;
  config: () => Config;
  log: EventStore;
  logger: Logger;
}

/**
 * The gateway's compaction of its own log: every `log.retention.compact_every_hours` (on the gateway's clock) the
 * retention runs as `tern log compact` would, while turns go on (`compactLive`); the log records `log.compacted` with
 * the sizes before and after. A log that is not the workspace's lmdb (a cluster's stream) is left alone.
 */
export class LogCompaction {
  private timer: { cancel(): void } | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: LogCompactionDeps) {}

  start(): void {
    this.stop();
    const hours = this.deps.config().log.retention.compact_every_hours;
    if (hours === 0 || !(this.deps.log instanceof EventLog)) return;
    const log = this.deps.log;
    this.timer = this.deps.scheduler.after(hours * 3_600_000, () => {
      this.running = this.compact(log).finally(() => {
        this.running = undefined;
        if (this.timer) this.start();
      });
    });
  }

  /** Stops the schedule; a compaction under way finishes (the returned promise), its swap cannot be cut in two. */
  stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    return this.running ?? Promise.resolve();
  }

  private async compact(log: EventLog): Promise<void> {
    const { retention } = this.deps.config().log;
    try {
      const result = await compactLive(log, retentionPlan(retention, new Date(this.deps.scheduler.now())), new Date());
      this.deps.logger.info('event log compacted', { ...result });
    } catch (error) {
      this.deps.logger.warn('event log not compacted', { reason: (error as Error).message });
    }
  }
}

import type { Config } from '../../store/config/index.js';
import { pollMultiplier } from '../../store/config/poll-multiplier.js';
import { removeInboundMedia } from '../../store/inbound-media.js';
import type { Logger } from '../../store/logs/logger.js';
import type { Scheduler } from '../scheduler.js';

export interface MediaCleanupDeps {
  scheduler: Scheduler;
  config: () => Config;
  workspace: string;
  logger: Logger;
}

/** Minutes between sweeps: `tools.media_cleanup.interval_minutes` × `power.poll_interval_multiplier`. */
export function mediaCleanupMinutes(config: Config): number {
  return config.tools.media_cleanup.interval_minutes * pollMultiplier(config.power);
}

/**
 * The gateway's sweep of the files users sent (`<workspace>/media/inbound/`): every `mediaCleanupMinutes` the
 * files older than `tools.media_cleanup.max_age_minutes` are removed, and the gateway log says how many.
 * `start()` (again after a reload of `tools.media_cleanup` or `power`) schedules the next sweep from now.
 */
export class MediaCleanup {
  private timer: { cancel(): void } | undefined;

  constructor(private readonly deps: MediaCleanupDeps) {}

  start(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const config = this.deps.config();
    if (!config.tools.media_cleanup.enabled) return;
    this.timer = this.deps.scheduler.after(mediaCleanupMinutes(config) * 60_000, () => {
      this.sweep();
      this.start();
    });
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private sweep(): void {
    const maxAgeMinutes = this.deps.config().tools.media_cleanup.max_age_minutes;
    const { removed, failed } = removeInboundMedia(
      this.deps.workspace,
      this.deps.scheduler.now() - maxAgeMinutes * 60_000,
    );
    if (removed.length > 0)
      this.deps.logger.info('inbound media removed', { count: removed.length, max_age_minutes: maxAgeMinutes });
    for (const { path, reason } of failed) this.deps.logger.warn('inbound media not removed', { path, reason });
  }
}

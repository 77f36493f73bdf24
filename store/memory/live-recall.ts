import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Bus } from '../../bus/index.js';
import type { EventStore } from '../log/event-store.js';
import { EventLog } from '../log/event-log.js';
import { MemoryEventStore } from '../log/memory-event-store.js';
import { logDir } from '../paths.js';
import type { Embedder } from './embedding-cache.js';
import type { Recall } from './recall.js';

export interface LiveRecallOptions {
  workspace: string;
  /** The runtime's log and bus; absent for a process that only looks (`tern tool`): it reads the workspace's log. */
  live?: { log: EventStore; bus: Bus };
  report?: (problem: string) => void;
  /** The embedding model of the config now (it may be reloaded), or none: recall then ranks by words alone. */
  embedder?: () => Embedder | undefined;
}

/**
 * Recall opened on first use (most turns never search, so a turn loads neither it nor its full-text library), then
 * kept current from the bus. Closing saves the index, so the next start folds only what was appended since.
 */
export class LiveRecall {
  private recall: Recall | undefined;
  private opening: Promise<Recall> | undefined;
  private ownLog: EventLog | undefined;

  constructor(private readonly options: LiveRecallOptions) {}

  get(): Promise<Recall> {
    this.opening ??= import('./recall.js').then(({ Recall }) => {
      const { live, workspace } = this.options;
      if (live) {
        this.recall = Recall.open(live.log, workspace, this.options);
        void this.recall.follow(live.bus);
        return this.recall;
      }
      const dir = logDir(workspace);
      // No log yet: nothing was said, and only the memory files can be searched.
      if (existsSync(join(dir, 'data.mdb'))) this.ownLog = EventLog.open(dir, { readOnly: true });
      this.recall = Recall.open(this.ownLog ?? new MemoryEventStore(), workspace, this.options);
      return this.recall;
    });
    return this.opening;
  }

  close(): void {
    this.recall?.stop();
    if (this.ownLog || this.options.live) this.recall?.save(this.options.report);
    this.recall = undefined;
    this.opening = undefined;
    this.ownLog?.close();
    this.ownLog = undefined;
  }
}

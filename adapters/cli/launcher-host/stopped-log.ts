import { EventLog } from '../../../store/log/event-log.js';
import { logDir } from '../../../store/paths.js';

/**
 * The log a stopped gateway left, which the dashboard still reads: opened read-only at the first read, closed before
 * the next start opens it for writing.
 */
export class StoppedLog {
  private workspace: string | undefined;
  private log: EventLog | undefined;

  /** The workspace the next start uses; a log opened for reading closes first. */
  readFrom(workspace: string): void {
    this.close();
    this.workspace = workspace;
  }

  /** The log, or none when no start has named a workspace or it cannot be opened. */
  read(): EventLog | undefined {
    if (this.log || !this.workspace) return this.log;
    try {
      this.log = EventLog.open(logDir(this.workspace), { readOnly: true });
    } catch {
      this.log = undefined;
    }
    return this.log;
  }

  /** The workspace the last start used, whether the gateway ran or not. */
  get lastWorkspace(): string | undefined {
    return this.workspace;
  }

  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}

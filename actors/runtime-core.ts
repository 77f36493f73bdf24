import { Bus } from '../bus/index.js';
import { redactorOf, type LoadedConfig } from '../store/config/index.js';
import { EventLog } from '../store/log/event-log.js';
import { logDir } from '../store/paths.js';
import { closeCutOffTasks, closeCutOffTurns } from './recovery.js';

/**
 * The log and the bus of a process, with the turns the previous run left open closed. The gateway opens
 * this first and is ready on it alone; agents, tools and models (`Runtime.on`) come after.
 */
export class RuntimeCore {
  readonly cutOffTurns: string[];

  private constructor(
    readonly loaded: LoadedConfig,
    readonly log: EventLog,
    readonly bus: Bus,
    command: string,
  ) {
    this.cutOffTurns = closeCutOffTurns(log, bus);
    closeCutOffTasks(log, bus);
    bus.publish({ type: 'runtime.started', data: { pid: process.pid, command } });
  }

  /** `command` is what runs it, recorded in `runtime.started`. */
  static open(loaded: LoadedConfig, command: string): RuntimeCore {
    const log = EventLog.open(logDir(loaded.workspace));
    try {
      // `loaded.config` is replaced on a hot reload: the secrets masked follow it.
      const bus = new Bus(log, { redact: (data) => redactorOf(loaded.config).value(data) });
      return new RuntimeCore(loaded, log, bus, command);
    } catch (error) {
      log.close();
      throw error;
    }
  }

  /**
   * A core for a process that looks at a runtime without running the workspace's turns (`tern tool`): what it
   * publishes goes to a log of its own, thrown away at the close, so a running gateway keeps the real one.
   */
  static scratch(loaded: LoadedConfig, command: string): RuntimeCore {
    const log = EventLog.scratch();
    try {
      return new RuntimeCore(loaded, log, new Bus(log, { redact: (data) => redactorOf(loaded.config).value(data) }), command);
    } catch (error) {
      log.close();
      throw error;
    }
  }

  /** Flushes the log and closes it. */
  async close(): Promise<void> {
    await this.log.flushed();
    this.log.close();
  }
}

import { InProcessBus, type Bus } from '../bus/index.js';
import { redactorOf, type LoadedConfig } from '../store/config/index.js';
import { EventLog } from '../store/log/event-log.js';
import type { EventStore } from '../store/log/event-store.js';
import { SendJournal, type PartJournal } from '../store/log/send-journal.js';
import { logDir } from '../store/paths.js';
import { Checkpoints } from './checkpoints.js';
import { closeCutOffTasks, recover, type Recovered } from './recovery.js';

export interface CoreOptions {
  /**
   * Takes up the work the previous run accepted and did not finish (the gateway). Without, only turns left open are
   * closed, and the rest waits for the gateway's next start (`tern agent`).
   */
  resume?: boolean;
  /** The log to run on instead of the workspace's lmdb log: a channel account's stream in a cluster (#27). */
  log?: EventStore;
  /** The send journal to keep instead of the workspace's file (a channel account's marks in a cluster, #40). */
  journal?: PartJournal;
}

/**
 * The log and the bus of a process, with the previous run's unfinished work recovered. The gateway opens this first
 * and is ready on it alone; agents, tools and models (`Runtime.on`) come after.
 */
export class RuntimeCore {
  readonly recovered: Recovered;
  /** Which reply parts may have left this process (the gateway's file, or a cluster account's marks in NATS). */
  readonly journal: PartJournal | undefined;
  private readonly checkpoints: Checkpoints | undefined;

  /** Whether the log is a scratch one (`tern tool`) rather than the workspace's, which recall then reads itself. */
  scratchLog = false;

  private constructor(
    readonly loaded: LoadedConfig,
    readonly log: EventStore,
    readonly bus: Bus,
    command: string,
    options: CoreOptions,
    journal?: PartJournal,
  ) {
    this.journal = journal;
    this.checkpoints = options.resume ? new Checkpoints(bus) : undefined;
    this.watchLogHealth();
    this.recovered = recover(log, bus, {
      resume: options.resume ?? false,
      ...(journal?.before ? { marked: journal.before } : {}),
    });
    journal?.restart(this.recovered.unconfirmed.map((part) => part.send_key));
    closeCutOffTasks(log, bus);
    this.checkpoints?.take(this.recovered.requeued);
    bus.requeue(this.recovered.requeued);
    bus.publish({ type: 'runtime.started', data: { pid: process.pid, command } });
    this.checkpoints?.record();
  }

  /**
   * A log that cannot write says so on the bus (the dashboard, the gateway's log file and its chats hear it); the event
   * itself waits in memory with the rest and lands in the log, in its place, once the log writes again.
   */
  private watchLogHealth(): void {
    let since: number | undefined;
    this.log.onHealth?.((health) => {
      if (health.state === 'failing') {
        since = health.since;
        this.bus.publish({ type: 'log.failed', data: { code: health.code, reason: health.reason } });
      } else if (since !== undefined) {
        this.bus.publish({ type: 'log.recovered', data: { failed_ms: Math.max(0, Date.now() - since) } });
        since = undefined;
      }
    });
  }

  /** Turns the previous run left open, now closed with `turn.aborted`. */
  get cutOffTurns(): string[] {
    return this.recovered.cutOffTurns;
  }

  /** `command` is what runs it, recorded in `runtime.started`. */
  static open(loaded: LoadedConfig, command: string, options: CoreOptions = {}): RuntimeCore {
    const dir = logDir(loaded.workspace);
    const log = options.log ?? EventLog.open(dir);
    let journal: PartJournal | undefined;
    try {
      journal = options.journal ?? (options.resume && !options.log ? SendJournal.open(dir) : undefined);
      // `loaded.config` is replaced on a hot reload: the secrets masked follow it.
      const bus = new InProcessBus(log, { redact: (data) => redactorOf(loaded.config).value(data) });
      return new RuntimeCore(loaded, log, bus, command, options, journal);
    } catch (error) {
      journal?.close();
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
      const core = new RuntimeCore(
        loaded,
        log,
        new InProcessBus(log, { redact: (data) => redactorOf(loaded.config).value(data) }),
        command,
        {},
      );
      core.scratchLog = true;
      return core;
    } catch (error) {
      log.close();
      throw error;
    }
  }

  /**
   * Records a last checkpoint, flushes the log and closes it. A log that cannot write is closed after one last try:
   * what it could not write was never acknowledged to a platform, which hands those messages out again.
   */
  async close(): Promise<void> {
    this.checkpoints?.record();
    this.checkpoints?.stop();
    await this.log.flushed({ failFast: true }).catch(() => undefined);
    this.journal?.close();
    this.log.close();
  }
}

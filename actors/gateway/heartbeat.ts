import { createActor } from 'xstate';
import { heartbeatMachine } from '../../machines/heartbeat.js';
import type { Bus } from '../../bus/index.js';
import type { Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import { readHeartbeatTasks } from '../../store/state.js';
import { sessionKeyOf } from '../wiring/session-key.js';
import { MachineActor, stateOnly } from '../machine-actor.js';
import type { Runtime } from '../runtime.js';
import type { Scheduler } from './scheduler.js';
import { InFlight } from '../in-flight.js';

export const HEARTBEAT_OK = 'HEARTBEAT_OK';

/** `stopped`: the heartbeat was stopped while its tick waited for the engine (recorded nowhere). */
export type HeartbeatSkip = 'disabled' | 'no_tasks' | 'busy' | 'stopped';
export type HeartbeatOutcome = { kind: 'ran'; reply: string; delivered: boolean } | { kind: 'skipped'; reason: HeartbeatSkip };

/** The heartbeat's own chat, on channel `system`: its turns (and what they log) are told apart by it. */
export const HEARTBEAT_CHAT = 'direct:heartbeat';

/** Minutes between heartbeats: low power uses its own interval unless the normal one is larger. */
export function heartbeatMinutes(config: Config): number {
  const normal = config.heartbeat.interval;
  return config.power.low_power ? Math.max(config.power.low_power_heartbeat_interval, normal) : normal;
}

export interface HeartbeatDeps {
  /** The turn engine, which the gateway loads once it is ready. */
  engine: () => Promise<Runtime>;
  bus: Bus;
  logger: Logger;
  scheduler: Scheduler;
  config: () => Config;
  workspace: string;
  /** Sends a heartbeat answer to the last active channel; false when there is none. */
  notify(text: string, runId: string): Promise<boolean>;
}

function prompt(tasks: string): string {
  return [
    'Heartbeat: run the periodic tasks from HEARTBEAT.md below.',
    `When they are done and nothing needs the user's attention, answer exactly ${HEARTBEAT_OK}.`,
    'Otherwise answer with what the user should know. Hand long tasks to spawn.',
    '',
    tasks,
  ].join('\n');
}

/**
 * Every `heartbeat.interval` minutes the default agent runs the tasks of HEARTBEAT.md in its own session
 * (channel `system`, so the turn is never an evolution record). `HEARTBEAT_OK` sends nothing; any other
 * answer goes to the last active channel. Each tick publishes `heartbeat.ticked`, with the reason a run was skipped;
 * its machine (`heartbeat`: `waiting` → `running` → `waiting`, `disabled`, `stopped`) publishes its moves.
 */
export class Heartbeat {
  private timer: { cancel(): void } | undefined;
  private running = false;
  private runs = 0;
  /** Set by `stop()`: a tick still in flight then records nothing, its turn having ended with the engine. */
  private stopped = false;
  private readonly inFlight = new InFlight();
  private readonly machine: MachineActor<typeof heartbeatMachine>;

  constructor(private readonly deps: HeartbeatDeps) {
    // Its first move (`stopped` → `waiting` or `disabled`) is the first thing it publishes.
    this.machine = new MachineActor(createActor(heartbeatMachine), { bus: deps.bus, correlation: {}, id: 'heartbeat', machine: heartbeatMachine.id, view: stateOnly, announce: false });
  }

  get state(): string {
    return this.machine.state;
  }

  /** (Re)schedules the next tick from the current config. */
  start(): void {
    this.stopped = false;
    this.machine.send({ type: 'SCHEDULE', enabled: this.deps.config().heartbeat.enabled });
    this.timer?.cancel();
    this.timer = this.deps.scheduler.after(heartbeatMinutes(this.deps.config()) * 60_000, () => {
      void this.tick()
        .catch((error: unknown) => {
          if (!this.stopped) this.deps.logger.error('heartbeat failed', { reason: (error as Error)?.message ?? String(error) });
        })
        .finally(() => {
          if (this.timer) this.start();
        });
    });
  }

  /**
   * Stops the timer. A tick in flight finishes (its turn ends with the engine) but publishes and logs nothing
   * more; `settled()` resolves once it has.
   */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.machine.send({ type: 'STOP' });
  }

  /** Resolves when no tick is in flight. */
  settled(): Promise<void> {
    return this.inFlight.settled();
  }

  /** Runs the heartbeat once and records its outcome, unless the heartbeat was stopped meanwhile. */
  tick(): Promise<HeartbeatOutcome> {
    return this.inFlight.track(this.runAndRecord());
  }

  private async runAndRecord(): Promise<HeartbeatOutcome> {
    const outcome = await this.run();
    if (this.stopped) return outcome;
    const data = outcome.kind === 'ran' ? { outcome: 'ran' as const } : { outcome: 'skipped' as const, reason: outcome.reason };
    this.deps.bus.publish({ type: 'heartbeat.ticked', data });
    this.deps.logger.info(outcome.kind === 'ran' ? `heartbeat ran${outcome.delivered ? ', answer sent' : ''}` : `heartbeat skipped: ${outcome.reason}`);
    return outcome;
  }

  private async run(): Promise<HeartbeatOutcome> {
    if (!this.deps.config().heartbeat.enabled) return { kind: 'skipped', reason: 'disabled' };
    const tasks = readHeartbeatTasks(this.deps.workspace);
    if (tasks.trim() === '') return { kind: 'skipped', reason: 'no_tasks' };
    const engine = await this.deps.engine();
    // A stop while the engine loaded: no turn starts on an engine that is closing.
    if (this.stopped) return { kind: 'skipped', reason: 'stopped' };
    const agent = engine.agent();
    if (this.running || agent.busySessions > 0) return { kind: 'skipped', reason: 'busy' };
    this.running = true;
    this.machine.send({ type: 'TICK' });
    const runId = `heartbeat_${++this.runs}_${this.deps.scheduler.now()}`;
    try {
      const key = sessionKeyOf({ agent: agent.id, channel: 'system', dimensions: [['chat', HEARTBEAT_CHAT]] });
      const reply = await agent.handle(key, { channel: 'system', account: 'default', chat: HEARTBEAT_CHAT, sender: 'heartbeat', messageId: runId, text: prompt(tasks), remote: false });
      const text = reply.kind === 'none' ? '' : reply.text.trim();
      // A turn the stop cut off sends nothing: its channels are stopping.
      const quiet = text === '' || text === HEARTBEAT_OK || this.stopped;
      const delivered = quiet ? false : await this.deps.notify(text, runId);
      return { kind: 'ran', reply: text, delivered };
    } finally {
      this.running = false;
      this.machine.send({ type: 'FINISHED' });
    }
  }
}

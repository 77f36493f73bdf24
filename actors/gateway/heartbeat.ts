import { createActor, fromPromise, type Actor, type InspectionEvent } from 'xstate';
import type { Bus } from '../../bus/index.js';
import type { SendOutcome } from '../../adapters/tools/options.js';
import { holderOf } from '../../adapters/tools/messaging/send-result.js';
import { heartbeatMachine, type HeartbeatAnswer } from '../../machines/heartbeat.js';
import type { Config } from '../../store/config/index.js';
import type { Logger } from '../../store/logs/logger.js';
import { readHeartbeatTasks, readLastChannel } from '../../store/state.js';
import type { Runtime } from '../runtime.js';
import { sessionKeyOf } from '../wiring/session-key.js';
import type { Delivery } from '../deliveries.js';
import type { ActorClock } from '../scheduler.js';

export const HEARTBEAT_OK = 'HEARTBEAT_OK';

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
  /** The engine if it has loaded (a tick never loads it just to see whether the agent is busy). */
  loadedEngine: () => Runtime | undefined;
  bus: Bus;
  logger: Logger;
  clock: ActorClock;
  now: () => number;
  config: () => Config;
  workspace: string;
  /** Sends the answer here, or hands it to the gateway running its channel; says which, or that nobody could. */
  deliver: (delivery: Delivery) => Promise<SendOutcome>;
  inspect: (event: InspectionEvent) => void;
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

/** The run's log line says what became of its answer: a relayed one is not out yet, a lost one is a warning. */
function logRun(logger: Logger, answer: HeartbeatAnswer): void {
  switch (answer.kind) {
    case 'none':
      return logger.info('heartbeat ran');
    case 'sent':
      return logger.info('heartbeat ran, answer sent');
    case 'relayed':
      return logger.info(`heartbeat ran, answer handed to ${holderOf(answer.to)}`);
    case 'not_delivered':
      return logger.warn('heartbeat ran, answer not delivered', { reason: answer.reason });
  }
}

/**
 * Every `heartbeat.interval` minutes the default agent runs the tasks of HEARTBEAT.md in its own session (channel
 * `system`, so the turn is never an evolution record). `HEARTBEAT_OK` sends nothing; any other answer goes to the last
 * active channel. The heartbeat machine is its state (`waiting` ⇄ `running`, `disabled`, `stopped`); each tick
 * publishes `heartbeat.ticked`, with the reason a skipped one ran nothing.
 */
export class Heartbeat {
  private readonly actor: Actor<typeof heartbeatMachine>;
  private runs = 0;

  constructor(private readonly deps: HeartbeatDeps) {
    const { bus, logger, config, workspace } = deps;
    const machine = heartbeatMachine.provide({
      actors: { beat: fromPromise(({ signal }) => this.beat(signal)) },
      actions: {
        ran: (_, { answer }) => {
          bus.publish({ type: 'heartbeat.ticked', data: { outcome: 'ran' } });
          logRun(logger, answer);
        },
        skipped: (_, { reason }) => {
          bus.publish({ type: 'heartbeat.ticked', data: { outcome: 'skipped', reason } });
          logger.info(`heartbeat skipped: ${reason}`);
        },
        failed: (_, { error }) =>
          logger.error('heartbeat failed', { reason: (error as Error)?.message ?? String(error) }),
      },
      guards: {
        enabled: () => config().heartbeat.enabled,
        hasTasks: () => readHeartbeatTasks(workspace).trim() !== '',
        agentBusy: () => {
          const engine = deps.loadedEngine();
          return engine !== undefined && engine.agent().busySessions > 0;
        },
      },
      delays: { interval: () => heartbeatMinutes(config()) * 60_000 },
    });
    this.actor = createActor(machine, { id: 'heartbeat', clock: deps.clock, inspect: deps.inspect });
    this.actor.subscribe({
      error: (error) => logger.error('heartbeat actor failed', { reason: (error as Error)?.message ?? String(error) }),
    });
    this.actor.start();
  }

  get state(): string {
    return String(this.actor.getSnapshot().value);
  }

  /** (Re)schedules the next tick from the current config. */
  start(): void {
    this.actor.send({ type: 'SCHEDULE' });
  }

  /** Stops the timer; a run in flight is abandoned and records nothing more (its turn ends with the engine). */
  stop(): void {
    this.actor.send({ type: 'STOP' });
  }

  /** One heartbeat turn, and its answer to the last active channel unless it is `HEARTBEAT_OK`. */
  private async beat(signal: AbortSignal): Promise<{ answer: HeartbeatAnswer }> {
    const { workspace } = this.deps;
    const engine = await this.deps.engine();
    // Stopped while the engine loaded: no turn starts on an engine that is closing.
    if (signal.aborted) return { answer: { kind: 'none' } };
    const agent = engine.defaultAgent();
    const runId = `heartbeat_${++this.runs}_${this.deps.now()}`;
    // A turn that has not answered by the next tick is given up (a failed run), so one stuck turn never stops the
    // heartbeat.
    const reply = await engine.ask(
      {
        agent,
        session_key: sessionKeyOf({ agent, channel: 'system', dimensions: [['chat', HEARTBEAT_CHAT]] }),
        message_id: runId,
        channel: 'system',
        chat: HEARTBEAT_CHAT,
        sender: 'heartbeat',
        text: prompt(readHeartbeatTasks(workspace)),
        remote: false,
      },
      { timeoutMs: heartbeatMinutes(this.deps.config()) * 60_000, signal, clock: this.deps.clock },
    );
    const text = reply.kind === 'none' ? '' : reply.text.trim();
    const last = readLastChannel(workspace);
    if (text === '' || text === HEARTBEAT_OK || signal.aborted || !last) return { answer: { kind: 'none' } };
    const answer = await this.deps.deliver({
      message_id: runId,
      key: `${last.channel}:${runId}:heartbeat`,
      text,
      reply: { channel: last.channel, chat: last.chat, reply_to: last.reply_to },
      outcome: 'completed',
    });
    return { answer };
  }
}

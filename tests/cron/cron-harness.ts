// A cron actor over a real store in a temp workspace, a hand-moved clock, and recording delivery callbacks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoardInspector } from '../../actors/board.js';
import { createActor, type AnyActorRef } from 'xstate';
import { CronActor, type CronJobView } from '../../actors/cron/cron-actor.js';
import { clockOf } from '../../actors/scheduler.js';
import { cronBoard } from '../../machines/cron.js';
import type { CronEffects, CronTurnRequest } from '../../actors/cron/run-job.js';
import { InProcessBus, type Envelope } from '../../bus/index.js';
import { validateConfig, type Config } from '../../store/config/index.js';
import type { CronJob } from '../../store/cron-db.js';
import { Logger } from '../../store/logs/logger.js';
import { ManualClock } from '../support/gateway-clock.js';
import { Redactor } from '../../store/config/index.js';

export function cronConfig(input: Record<string, unknown> = {}): Config {
  const result = validateConfig({ version: 2, ...input });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
}

/** The cron actor as its host runs it: started, stopped with a reason, its jobs' states. */
export interface CronRunner {
  start(): Promise<void>;
  stop(reason?: string): void;
  settled(): Promise<void>;
  states(): CronJobView[];
}

export interface CronHarness {
  workspace: string;
  clock: ManualClock;
  actor: CronRunner;
  events: Envelope[];
  sent: string[];
  turns: CronTurnRequest[];
  commands: Array<{ command: string; timeoutMs: number | undefined }>;
  /** Moves the clock and waits for every run it started. */
  advance(ms: number): Promise<void>;
  transitions(): string[];
  config: Config;
  /** Stops the actor and deletes the temp workspace. */
  close(): Promise<void>;
}

export function cronHarness(
  start: string,
  options: { config?: Config; effects?: Partial<CronEffects> } = {},
): CronHarness {
  const root = mkdtempSync(join(tmpdir(), 'tern-'));
  const workspace = join(root, 'workspace');
  const clock = new ManualClock();
  clock.advance(Date.parse(start));
  const bus = new InProcessBus();
  const board = new BoardInspector(bus, { cron: cronBoard });
  const events: Envelope[] = [];
  bus.events$.subscribe((event) => events.push(event));
  const sent: string[] = [];
  const turns: CronTurnRequest[] = [];
  const commands: CronHarness['commands'] = [];
  const cron = new CronActor({
    workspace,
    bus,
    scheduler: clock,
    config: () => config(),
    logger: new Logger([], 'debug', Redactor.none),
    send: async (target, text) => {
      sent.push(`${target.channel}/${target.chat}: ${text}`);
      return { kind: 'sent' };
    },
    runTurn: async (request) => {
      turns.push(request);
      return { ok: true, text: `reply to ${request.message}` };
    },
    runCommand: async (command, timeoutMs) => {
      commands.push({ command, timeoutMs });
      return { ok: true, content: 'done' };
    },
    ...options.effects,
  });
  let running: AnyActorRef | undefined;
  const runner: CronRunner = {
    async start() {
      running = createActor(cron.logic, { clock: clockOf(clock), inspect: board.inspect }).start();
      await cron.settled();
    },
    stop(reason = 'the gateway is stopping') {
      for (const id of CronActor.jobActors(running)) board.stopped(id, reason);
      running?.stop();
    },
    settled: () => cron.settled(),
    states: () => CronActor.states(running),
  };
  const config = () => harness.config;
  const harness: CronHarness = {
    workspace,
    clock,
    events,
    sent,
    turns,
    commands,
    config: options.config ?? cronConfig(),
    actor: runner,
    async close() {
      harness.actor.stop();
      await harness.actor.settled();
      rmSync(root, { recursive: true, force: true });
    },
    async advance(ms) {
      clock.advance(ms);
      await harness.actor.settled();
    },
    transitions: () =>
      events.flatMap((e) =>
        e.type === 'actor.transitioned'
          ? [`${e.data.actor} ${e.data.from ?? '-'} -${e.data.event}-> ${e.data.to}`]
          : e.type === 'cron.fired'
            ? [`fired ${e.data.job} ${e.data.kind}`]
            : e.type === 'actor.stopped'
              ? [`stopped ${e.data.actor} (${e.data.reason})`]
              : [],
      ),
  };
  return harness;
}

export function deliverJob(id: string, schedule: CronJob['schedule'], extra: Partial<CronJob> = {}): CronJob {
  return {
    id,
    name: id,
    schedule,
    job: { kind: 'deliver', channel: 'telegram', chat: 'direct:42', text: `${id} says hi` },
    enabled: true,
    created_at: '2026-03-01T09:00:00.000Z',
    created_by: { channel: 'cli' },
    ...extra,
  };
}

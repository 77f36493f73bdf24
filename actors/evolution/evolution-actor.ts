import type { Subscription } from 'rxjs';
import { assign, createActor, fromPromise, type Actor } from 'xstate';
import type { Bus, Envelope } from '../../bus/index.js';
import type { ModelRouter } from '../../adapters/providers/router.js';
import { evolutionBoard, evolutionMachine, evolutionState } from '../../machines/evolution.js';
import type { Config } from '../../store/config/index.js';
import type { EventStore } from '../../store/log/event-store.js';
import { evolutionStateDir, syncDraftCopies, takeDecisions } from '../../store/skills/evolution-files.js';
import { BoardInspector } from '../board.js';
import { clockOf, type Scheduler } from '../scheduler.js';
import { InFlight } from '../in-flight.js';
import { applies, applyDraft, decide } from './decide.js';
import { draftRequest, parseDraft } from './drafter.js';
import { EVOLUTION_TYPES, EvolutionView, type Cluster } from './projection.js';
import { TALLY_TYPES, TurnTallies } from './turn-tally.js';

/** Drafts one cold-path run asks the model for at most; the rest wait for the next run. */
const DRAFTS_PER_RUN = 3;
/** How often decisions queued by `tern skills accept/reject` are picked up. */
const INBOX_EVERY_MS = 2000;

export interface EvolutionDeps {
  bus: Bus;
  log: EventStore;
  config: () => Config;
  workspace: string;
  router: ModelRouter;
  /** The clock of scheduled runs (`cold_path_times`, local time) and of the decision inbox. */
  scheduler: Scheduler;
  logError?: (line: string) => void;
}

const pad = (n: number): string => String(n).padStart(2, '0');

function newDraftId(now: number): string {
  return `d_${now.toString(36)}${Math.floor(Math.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}`;
}

/**
 * Self-evolution: every completed turn that is not a heartbeat becomes `learning.recorded` (when
 * `evolution.enabled`); in `draft` and `apply` modes the cold path (the `evolution` machine) groups the records by
 * task shape and asks the model to draft a skill for a group that is large and successful enough (`skill.drafted`),
 * after each turn, at the `scheduled` times or never (`manual`). A person's decision (`skill.decision.requested` from
 * the dashboard, or a request the CLI queued) accepts or rejects a draft; in `apply` mode an accepted draft is
 * written into the workspace `skills/`. Everything it learns is in the log; `state_dir` holds only readable copies of
 * the drafts waiting for a decision.
 */
export class EvolutionActor {
  private readonly view: EvolutionView;
  private readonly tallies = new TurnTallies();
  private readonly machine: Actor<typeof evolutionMachine>;
  private readonly inFlight = new InFlight();
  private readonly subscription: Subscription;
  /** Aborted by the stop: ends a draft request in flight, and nothing more is taken in. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: EvolutionDeps) {
    this.view = EvolutionView.fromLog(deps.log);
    const board = new BoardInspector(deps.bus, { evolution: evolutionBoard });
    this.machine = createActor(this.provided(), {
      id: 'evolution',
      clock: clockOf(deps.scheduler),
      // The machines page shows evolution while it is enabled: a disabled one has no moves of its own.
      inspect: (event) => {
        if (this.deps.config().evolution.enabled) board.inspect(event);
      },
    });
    this.machine.subscribe({ error: () => undefined });
    this.machine.start();
    this.subscription = deps.bus
      .on(...TALLY_TYPES, ...EVOLUTION_TYPES, 'skill.decision.requested')
      .subscribe((event) => this.onEvent(event));
    this.syncCopies();
  }

  /** Whether the cold path is `idle`, `running` or `stopped`. */
  get status(): string {
    return evolutionState(this.machine.getSnapshot().value);
  }

  /** Resolves once no cold-path run is in progress (a draft being written is finished, or recorded as failed). */
  settled(): Promise<void> {
    return this.inFlight.settled();
  }

  /**
   * Stops the clock and the subscription; resolves once a cold-path run in progress has ended. A draft the model is
   * still writing is cut off and recorded as `skill.draft_failed`, so its records are drafted again later.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.subscription.unsubscribe();
    this.machine.send({ type: 'STOP' });
    await this.inFlight.settled();
  }

  /** The machine with this host's effects, guards and clock. */
  private provided(): typeof evolutionMachine {
    const { scheduler, config } = this.deps;
    const minuteKey = (): { minute: string; key: string } => {
      const at = new Date(scheduler.now());
      const minute = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
      return { minute, key: `${at.toDateString()} ${minute}` };
    };
    return evolutionMachine.provide({
      actors: { coldPath: fromPromise(() => this.inFlight.track(this.coldPath())) },
      actions: {
        markScheduled: assign({ lastScheduled: () => minuteKey().key }),
        takeInbox: () => this.takeInbox(),
      },
      guards: {
        drafts: () => config().evolution.enabled && config().evolution.mode !== 'observe',
        // A `scheduled` trigger runs at each `cold_path_times` entry (local time), once.
        scheduledMinute: ({ context }) => {
          const { cold_path_trigger, cold_path_times } = config().evolution;
          const { minute, key } = minuteKey();
          return cold_path_trigger === 'scheduled' && cold_path_times.includes(minute) && key !== context.lastScheduled;
        },
      },
      // On the minute.
      delays: { minute: () => 60_000 - (scheduler.now() % 60_000), inbox: INBOX_EVERY_MS },
    });
  }

  private onEvent(event: Envelope): void {
    if (this.stopping.signal.aborted) return;
    const evolution = this.deps.config().evolution;
    this.view.fold(event);
    if (event.type === 'skill.decision.requested') {
      this.decide(event.data);
      return;
    }
    if (event.type === 'skill.drafted' || event.type === 'skill.accepted' || event.type === 'skill.rejected')
      this.syncCopies();
    if (event.type === 'learning.recorded' && evolution.cold_path_trigger === 'after_turn') this.run('after_turn');
    if (!evolution.enabled) return;
    const record = this.tallies.feed(event);
    if (record) this.deps.bus.publish({ ...record.correlation, type: 'learning.recorded', data: record.data });
  }

  private decide(request: { request: string; draft: string; decision: 'accept' | 'reject'; by: string }): void {
    const { bus, config, workspace, scheduler } = this.deps;
    try {
      decide({ bus, view: this.view, config, workspace, now: () => new Date(scheduler.now()) }, request);
    } catch (error) {
      this.deps.logError?.(`evolution: the decision on ${request.draft} failed: ${(error as Error).message}`);
    }
  }

  /** A cold-path run, when the mode drafts at all (the machine's `drafts`). */
  private run(trigger: 'after_turn' | 'scheduled'): void {
    this.machine.send({ type: 'RUN', trigger });
  }

  private async coldPath(): Promise<void> {
    const config = this.deps.config();
    if (applies(config)) {
      for (const draft of this.view.draftList().filter((d) => d.status === 'accepted' && !d.apply_error)) {
        applyDraft({ ...this.deps, now: () => new Date(this.deps.scheduler.now()) }, draft);
      }
    }
    const { min_task_count, min_success_ratio } = config.evolution;
    for (const cluster of this.view.eligible(min_task_count, min_success_ratio).slice(0, DRAFTS_PER_RUN)) {
      if (this.stopping.signal.aborted) return;
      await this.draft(cluster, config);
    }
  }

  private async draft(cluster: Cluster, config: Config): Promise<void> {
    const records = cluster.records.map((r) => r.seq);
    const modelName = config.agents.defaults.model ?? config.model_list.find((m) => m.enabled)?.model_name;
    const failed = (reason: string) =>
      this.deps.bus.publish({ type: 'skill.draft_failed', data: { shape: cluster.shape, records, reason } });
    if (!modelName) return void failed('no model is configured (agents.defaults.model)');
    try {
      const answer = await this.deps.router.chat(modelName, draftRequest(cluster), { signal: this.stopping.signal });
      const skill = parseDraft(answer);
      this.deps.bus.publish({
        type: 'skill.drafted',
        data: {
          draft: newDraftId(this.deps.scheduler.now()),
          shape: cluster.shape,
          ...skill,
          records,
          success_ratio: Math.round(cluster.successRatio * 1000) / 1000,
          model_name: modelName,
        },
      });
    } catch (error) {
      failed(
        this.stopping.signal.aborted
          ? 'the process stopped before the model finished the draft'
          : (error as Error).message,
      );
    }
  }

  /**
   * `state_dir/drafts/` follows the drafts waiting for a decision; a failure to write it costs nothing but the copy.
   */
  private syncCopies(): void {
    const config = this.deps.config();
    const pending = this.view.draftList().filter((d) => d.status === 'pending');
    if (pending.length === 0 && !config.evolution.enabled) return;
    try {
      syncDraftCopies(evolutionStateDir(this.deps.workspace, config.evolution.state_dir), pending);
    } catch (error) {
      this.deps.logError?.(`evolution: the draft copies in state_dir were not updated: ${(error as Error).message}`);
    }
  }

  private takeInbox(): void {
    try {
      for (const request of takeDecisions(this.deps.workspace)) this.decide(request);
    } catch (error) {
      this.deps.logError?.(`evolution: queued decisions were not read: ${(error as Error).message}`);
    }
  }
}

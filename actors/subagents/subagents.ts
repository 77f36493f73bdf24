import type { Subscription } from 'rxjs';
import { assign, createActor, fromPromise, toPromise, type Actor, type InspectionEvent } from 'xstate';
import { draftOf, sessionIdOf, type Bus, type Correlation } from '../../bus/index.js';
import type { SendFunction } from '../../adapters/tools/options.js';
import type { SubagentPort, SubagentRequest, TaskView } from '../../adapters/tools/subagent/index.js';
import { ToolError, type ToolContext } from '../../adapters/tools/tool.js';
import {
  subagentTaskMachine,
  type ChildOutcome,
  type SubagentStatus,
  type SubagentTaskContext,
  type SubagentTaskInput,
} from '../../machines/subagent-task.js';
import type { Config } from '../../store/config/index.js';
import { settledWithin } from '../settled-within.js';
import { newTaskId } from '../ids.js';
import { InFlight } from '../in-flight.js';
import { stateName } from '../machine-state.js';
import type { SessionSubagents } from '../agent-services.js';
import { sessionKeyOf } from '../wiring/session-key.js';
import { targetAgent } from './allowed-agents.js';
import type { SubagentHost } from './host.js';
import { childMessage } from './task-message.js';
import { taskView } from './task-view.js';

export interface SubagentsDeps {
  bus: Bus;
  config: () => Config;
  host: SubagentHost;
  now: () => number;
  /** How a spawned task that did not report itself reaches its chat; without it nothing is sent. */
  send?: SendFunction;
  logError: (line: string) => void;
}

/** Finished tasks kept for `spawn_status`; older ones are forgotten (their events stay in the log). */
const FINISHED_KEPT = 500;
/** Characters of a final answer kept in `subagent.ended`; the whole answer is the child's `turn.completed`. */
const RESULT_KEPT = 500;

function hostedMachine(subagents: Subagents, now: () => number) {
  return subagentTaskMachine.provide({
    actors: {
      runChild: fromPromise<ChildOutcome, SubagentTaskContext>(({ input, signal }) =>
        subagents.runChild(input, signal),
      ),
    },
    actions: {
      stampStart: assign({ startedAt: () => now() }),
      stampEnd: assign({ endedAt: () => now() }),
      ended: ({ context }, { status }) => subagents.ended(context, status),
    },
  });
}

type TaskActor = Actor<ReturnType<typeof hostedMachine>>;

interface TaskRecord {
  actor: TaskActor;
  /** The state last published for the machines board. */
  shown?: string;
  /** The child's turn while it runs. */
  run?: Promise<unknown>;
  /** The child sent the user a message itself. */
  reported: boolean;
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The subagent tasks of a runtime: `spawn` and `subagent` create one `subagent` machine each, which waits for a
 * free slot in its parent's session (`max_concurrent`), runs its child turn through the host (at most the task
 * timeout) and ends `completed`, `failed` or `canceled`. Each move is published for the machines board under the
 * parent turn; `subagent.spawned` and `subagent.ended` record the task in the parent's turn.
 */
export class Subagents implements SubagentPort, SessionSubagents {
  private readonly tasks = new Map<string, TaskRecord>();
  /** Which task a child session belongs to: its depth and conversation come from there. */
  private readonly taskOfSession = new Map<string, string>();
  private readonly inFlight = new InFlight();
  private readonly machine: ReturnType<typeof hostedMachine>;
  private readonly reports: Subscription;
  /** Why no task starts any more (the runtime is stopping). */
  private closing: string | undefined;

  constructor(private readonly deps: SubagentsDeps) {
    this.machine = hostedMachine(this, deps.now);
    // A child that messaged the user has reported; only a silent one has its answer sent for it.
    this.reports = deps.bus.on('tool.completed').subscribe((event) => {
      if (event.task && event.data.name === 'message' && event.data.ok) {
        const record = this.tasks.get(event.task);
        if (record) record.reported = true;
      }
    });
  }

  spawn(request: SubagentRequest, context: ToolContext): TaskView {
    const actor = this.create('spawn', request, context);
    const { value, context: task } = actor.getSnapshot();
    return taskView(stateName(value), task);
  }

  async run(request: SubagentRequest, context: ToolContext): Promise<string> {
    const actor = this.create('subagent', request, context);
    const cancel = (): void => actor.send({ type: 'CANCEL', reason: 'the turn that asked for it was stopped' });
    if (context.signal.aborted) cancel();
    context.signal.addEventListener('abort', cancel, { once: true });
    try {
      await toPromise(actor);
    } finally {
      context.signal.removeEventListener('abort', cancel);
    }
    const { value, context: task } = actor.getSnapshot();
    if (value === 'completed') return task.answer ?? '';
    throw new ToolError(
      `subagent_${stateName(value)}`,
      `subagent task ${task.id} ${stateName(value)}: ${task.reason ?? 'no reason given'}`,
    );
  }

  status(taskId: string | undefined, context: ToolContext): TaskView[] {
    const root = this.lineageOf(context.session).root;
    const mine = this.views((task) => task.parent.root === root);
    if (taskId === undefined) return mine;
    const one = mine.filter((view) => view.task_id === taskId);
    if (one.length === 0)
      throw new ToolError(
        'unknown_task',
        `no subagent task "${taskId}" in this conversation; spawn_status without task_id lists them`,
      );
    return one;
  }

  /** Whether a turn of `session` is already as deep as subagents may nest: it is offered no tool to nest further. */
  atDepthLimit(session: string): boolean {
    return this.lineageOf(session).depth >= this.deps.config().agents.defaults.subagents.max_depth;
  }

  cancelUnder(root: string, reason: string): number {
    const active = this.active().filter((record) => record.actor.getSnapshot().context.parent.root === root);
    for (const record of active) record.actor.send({ type: 'CANCEL', reason });
    return active.length;
  }

  runningUnder(root: string): TaskView[] {
    return this.views((task, state) => task.parent.root === root && (state === 'waiting' || state === 'running'));
  }

  /**
   * No task starts from now on (a request is refused with `reason`); resolves when the running ones ended or `ms`
   * passed.
   */
  async drain(ms: number, reason: string): Promise<void> {
    this.closing = reason;
    if (ms > 0)
      await settledWithin(
        this.active().map((record) => toPromise(record.actor)),
        ms,
      );
  }

  /**
   * Drains for `drainMs`, then cancels what still runs with `reason`. Resolves once every child turn has ended and
   * every end is recorded.
   */
  async stop(drainMs: number, reason: string): Promise<void> {
    await this.drain(drainMs, reason);
    for (const record of this.active()) record.actor.send({ type: 'CANCEL', reason });
    await this.inFlight.settled();
    this.reports.unsubscribe();
  }

  /** The host's `runChild`: the task's turn, cancelled (with the machine's reason) when the task leaves `running`. */
  runChild(task: SubagentTaskContext, signal: AbortSignal): Promise<ChildOutcome> {
    const child = new AbortController();
    // The machine stops `runChild` while it leaves `running`, before it notes why: the reason is read a moment later.
    signal.addEventListener('abort', () => queueMicrotask(() => child.abort(this.reasonOf(task.id))), { once: true });
    const run = this.deps.host.run(
      {
        agent: task.agent,
        sessionKey: task.sessionKey,
        link: { parent: task.parent.turn, task: task.id, delegatedBy: task.parent.agent },
        message: childMessage(task),
        timeoutMs: task.timeoutMs,
      },
      child.signal,
    );
    const record = this.tasks.get(task.id);
    if (record) record.run = run;
    return this.inFlight.track(run);
  }

  /** A task reached its end: recorded once its child's turn has ended, reported to its chat, its slot given on. */
  ended(task: SubagentTaskContext, status: SubagentStatus): void {
    const record = this.tasks.get(task.id);
    const write = (): void => this.record(task, status, record);
    void this.inFlight.track((record?.run ?? Promise.resolve()).then(write, write));
    // The machine is still moving: the slot is given on once it has reached its end.
    queueMicrotask(() => this.schedule(task.parent.session));
  }

  private record(task: SubagentTaskContext, status: SubagentStatus, record: TaskRecord | undefined): void {
    const data = {
      task_id: task.id,
      status,
      ...(status === 'completed' && task.answer ? { result: clip(task.answer, RESULT_KEPT) } : {}),
      ...(status !== 'completed' && task.reason ? { reason: task.reason } : {}),
      ...(task.turn ? { turn: task.turn } : {}),
    };
    this.deps.bus.publish(draftOf(this.keysOf(task), 'subagent.ended', data));
    this.deps.bus.publish(
      draftOf(this.keysOf(task), 'actor.stopped', {
        actor: `subagent:${task.id}`,
        machine: 'subagent',
        reason: status,
      }),
    );
    if (task.mode === 'spawn') void this.report(task, status, record?.reported ?? false);
  }

  /**
   * A spawned task tells its chat how it went when its child did not: a silent child's final answer, or why it
   * failed. A canceled task says nothing (the user stopped it, or the gateway is stopping).
   */
  private async report(task: SubagentTaskContext, status: SubagentStatus, reported: boolean): Promise<void> {
    const send = this.deps.send;
    const name = task.label ? `"${task.label}"` : task.id;
    const text =
      status === 'completed' && !reported && task.answer?.trim()
        ? `Subagent task ${name} finished:\n\n${task.answer}`
        : status === 'failed'
          ? `Subagent task ${name} failed: ${task.reason ?? 'no reason given'}`
          : undefined;
    if (!send || !text) return;
    const outcome = await send({ channel: task.origin.channel, chat: task.origin.chat }, text, []).catch(
      (error: Error) => ({ kind: 'not_delivered' as const, reason: error.message }),
    );
    if (outcome.kind === 'not_delivered')
      this.deps.logError(`subagent task ${task.id}: its result was not delivered (${outcome.reason})`);
  }

  /** Starts waiting tasks of a parent session, oldest first, while fewer than `max_concurrent` run there. */
  private schedule(session: string): void {
    const limit = this.deps.config().agents.defaults.subagents.max_concurrent;
    const mine = [...this.tasks.values()].filter(
      (record) => record.actor.getSnapshot().context.parent.session === session,
    );
    let running = mine.filter((record) => record.actor.getSnapshot().value === 'running').length;
    for (const record of mine) {
      if (running >= limit) return;
      if (record.actor.getSnapshot().value !== 'waiting') continue;
      record.actor.send({ type: 'SLOT_FREE' });
      running++;
    }
  }

  private create(mode: SubagentTaskInput['mode'], request: SubagentRequest, context: ToolContext): TaskActor {
    if (this.closing) throw new ToolError('subagents_stopping', `no new subagent can start: ${this.closing}`);
    if (!context.turn) throw new ToolError('no_turn', `${mode} runs only inside an agent turn`);
    const config = this.deps.config();
    const limits = config.agents.defaults.subagents;
    const lineage = this.lineageOf(context.session);
    if (lineage.depth >= limits.max_depth) {
      throw new ToolError(
        'subagent_depth',
        `subagents nest at most ${limits.max_depth} deep (agents.defaults.subagents.max_depth) and this turn is ` +
          `already at depth ${lineage.depth}: do this task yourself`,
      );
    }
    const agent = targetAgent(config, context.agent, request.agentId);
    const createdAt = this.deps.now();
    const id = newTaskId(createdAt);
    const input: SubagentTaskInput = {
      id,
      mode,
      agent,
      ...(request.label?.trim() ? { label: request.label.trim() } : {}),
      task: request.task,
      depth: lineage.depth + 1,
      sessionKey: sessionKeyOf({ agent, channel: 'subagent', dimensions: [['chat', id]] }),
      parent: { agent: context.agent, session: context.session, turn: context.turn, root: lineage.root },
      origin: { channel: context.channel, chat: context.chat, remote: context.remote },
      createdAt,
      slotWaitMs: limits.concurrency_timeout_sec * 1000,
      timeoutMs: limits.default_timeout_minutes * 60_000,
    };
    const record: TaskRecord = {
      actor: createActor(this.machine, { id: `subagent:${id}`, input, inspect: (event) => this.show(id, event) }),
      reported: false,
    };
    this.tasks.set(id, record);
    this.taskOfSession.set(sessionIdOf(input.sessionKey), id);
    const { parent } = input;
    this.deps.bus.publish(
      draftOf(this.keysOf(input), 'subagent.spawned', {
        task_id: id,
        mode,
        agent_id: agent,
        ...(input.label ? { label: input.label } : {}),
        task: input.task,
        depth: input.depth,
        session_key: input.sessionKey,
      }),
    );
    record.actor.subscribe({
      error: (error) => this.deps.logError(`subagent task ${id} failed: ${(error as Error)?.message ?? String(error)}`),
    });
    record.actor.start();
    this.schedule(parent.session);
    this.forgetOldest();
    return record.actor;
  }

  /** Publishes each change of a task's state for the machines board, caused by the event xstate reports. */
  private show(id: string, event: InspectionEvent): void {
    const record = this.tasks.get(id);
    if (event.type !== '@xstate.snapshot' || !record || event.actorRef !== record.actor) return;
    const snapshot = record.actor.getSnapshot();
    const to = stateName(snapshot.value);
    if (to === record.shown) return;
    const data = {
      actor: record.actor.id,
      machine: 'subagent',
      ...(record.shown ? { from: record.shown } : {}),
      to,
      event: event.event.type,
    };
    record.shown = to;
    this.deps.bus.publish(draftOf(this.keysOf(snapshot.context), 'actor.transitioned', data));
  }

  /** The parent turn's keys and the task's: where a task's own events belong. */
  private keysOf(task: SubagentTaskInput): Correlation {
    return { agent: task.parent.agent, session: task.parent.session, turn: task.parent.turn, task: task.id };
  }

  /** A user's session is depth 0 and its own root; a child session is its task's depth under the same root. */
  private lineageOf(session: string): { depth: number; root: string } {
    const task = this.tasks.get(this.taskOfSession.get(session) ?? '')?.actor.getSnapshot().context;
    return task ? { depth: task.depth, root: task.parent.root } : { depth: 0, root: session };
  }

  private reasonOf(id: string): string {
    return this.tasks.get(id)?.actor.getSnapshot().context.reason ?? 'canceled';
  }

  private active(): TaskRecord[] {
    return [...this.tasks.values()].filter((record) => record.actor.getSnapshot().status === 'active');
  }

  private views(keep: (task: SubagentTaskContext, state: string) => boolean): TaskView[] {
    return [...this.tasks.values()].flatMap((record) => {
      const { value, context } = record.actor.getSnapshot();
      const state = stateName(value);
      return keep(context, state) ? [taskView(state, context)] : [];
    });
  }

  private forgetOldest(): void {
    const finished = [...this.tasks.entries()].filter(([, record]) => record.actor.getSnapshot().status !== 'active');
    for (const [id, record] of finished.slice(0, Math.max(0, finished.length - FINISHED_KEPT))) {
      this.tasks.delete(id);
      this.taskOfSession.delete(sessionIdOf(record.actor.getSnapshot().context.sessionKey));
    }
  }
}

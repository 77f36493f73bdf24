import { createActor, type Actor } from 'xstate';
import * as z from 'zod';
import type { EventDraft } from '../bus/events/index.js';
import { fail, ok, type Tool, type ToolContext, type ToolResult } from '../adapters/tools/tool.js';
import {
  TODO_PLAN_SLOTS,
  todoPlanMachine,
  todoPlanSchema,
  type TodoOutcome,
  type TodoPlanEvent,
} from '../machines/todo-plan.js';

/** What the model sees of a plan item list; the plan machine validates the list itself, with clear errors. */
function todosJsonSchema() {
  const schema = z.toJSONSchema(todoPlanSchema, { io: 'input' });
  delete schema.$schema;
  return schema;
}

/**
 * Strict: unknown keys are rejected, so arguments can never name an agent or a session; the plan is
 * chosen only from the pipeline's context. `todos` is left unparsed here so that the plan machine
 * reports a bad list (field by field) and keeps the previous plan.
 */
function buildArgumentsSchema() {
  return z.strictObject({
    action: z.enum(['read', 'write']).describe('read returns the plan; write replaces it'),
    todos: z
      .unknown()
      .optional()
      .meta({
        ...todosJsonSchema(),
        description: 'For write: the complete replacement list (required; [] clears the plan). Ignored for read.',
      }),
  });
}

// Built on first use: converting the plan schema to JSON schema is start-up work no turn has asked for yet.
let argumentsSchema: ReturnType<typeof buildArgumentsSchema> | undefined;

export type TodoArguments = z.infer<ReturnType<typeof buildArgumentsSchema>>;

export type PublishTodoWritten = (draft: EventDraft<'todo.written'>) => void;

type PlanActor = Actor<typeof todoPlanMachine>;

const DESCRIPTION =
  'Keep a short plan for the current task: read it, or write the complete list of items (id, content, status ' +
  'pending|in_progress|completed|canceled, priority low|medium|high). Write [] when the work is done.';

/**
 * The `todo` tool of one agent runtime: one plan machine per (agent id, session id), in memory only.
 * Only nonempty plans are held, at most `TODO_PLAN_SLOTS`; a new plan beyond that fails and nothing is
 * evicted.
 */
export class TodoTool implements Tool<TodoArguments> {
  readonly name = 'todo';
  readonly description = DESCRIPTION;
  get parameters() {
    return (argumentsSchema ??= buildArgumentsSchema());
  }
  private readonly plans = new Map<string, PlanActor>();
  /**
   * The machine of every session without a plan: reads, refused writes and `[]` leave it `empty`, so they need
   * no machine of their own (one per call cost more than the rest of a read).
   */
  private idle: PlanActor | undefined;

  constructor(private readonly publish?: PublishTodoWritten) {}

  /** Nonempty plans currently held. */
  get storedPlans(): number {
    return this.plans.size;
  }

  async execute(args: TodoArguments, context: ToolContext): Promise<ToolResult> {
    if (!context.agent || !context.session) {
      return fail('todo failed: it needs the trusted agent and session of a running turn, and this call had none.');
    }
    const event: TodoPlanEvent =
      args.action === 'read'
        ? { type: 'READ' }
        : { type: 'WRITE', todos: args.todos, slots_full: this.plans.size >= TODO_PLAN_SLOTS };
    const outcome = this.send(planKey(context.agent, context.session), event);
    if (!outcome.ok) return fail(outcome.error);
    if (args.action === 'write') this.announce(context, outcome);
    return ok(JSON.stringify({ todos: outcome.todos, total_count: outcome.todos.length, message: outcome.message }));
  }

  /** The session's history was cleared (`/clear`): its plan is discarded. */
  clear(agent: string, session: string): void {
    this.send(planKey(agent, session), { type: 'CLEAR' });
  }

  /** The session's owner is gone (an ephemeral subagent ended): its plan is released. */
  release(agent: string, session: string): void {
    this.send(planKey(agent, session), { type: 'RELEASE' });
  }

  private send(key: string, event: TodoPlanEvent): TodoOutcome {
    const held = this.plans.get(key);
    const actor = held ?? (this.idle ??= this.spawn());
    // A read that changes nothing (the idle machine already reports no plan) needs no step: `can` asks the machine.
    // Other events are sent as they are: `can` would parse a write's list once more.
    if (event.type !== 'READ' || actor.getSnapshot().can(event)) actor.send(event);
    const snapshot = actor.getSnapshot();
    const stored = snapshot.status === 'active' && snapshot.value === 'stored';
    if (stored && !held) this.adopt(key, actor);
    if (!stored && (held || snapshot.status !== 'active')) this.drop(actor, key);
    if (snapshot.status === 'error')
      return { ok: false, error: 'todo failed: the plan could not be updated; the previous plan is lost.' };
    return snapshot.context.outcome;
  }

  private spawn(): PlanActor {
    const actor = createActor(todoPlanMachine);
    // An error would otherwise be rethrown by xstate and end the process; `send` reports it instead.
    actor.subscribe({ error: () => this.drop(actor) });
    return actor.start();
  }

  /**
   * The idle machine just stored a plan: it becomes this session's, and the next session without one gets a new one.
   */
  private adopt(key: string, actor: PlanActor): void {
    this.plans.set(key, actor);
    if (this.idle === actor) this.idle = undefined;
  }

  /** Stops a machine that holds no plan any more (emptied, released or failed); `key` is its session's, when known. */
  private drop(actor: PlanActor, key?: string): void {
    if (key !== undefined && this.plans.get(key) === actor) this.plans.delete(key);
    else for (const [held, plan] of this.plans) if (plan === actor) this.plans.delete(held);
    if (this.idle === actor) this.idle = undefined;
    actor.stop();
  }

  private announce(context: ToolContext, outcome: Extract<TodoOutcome, { ok: true }>): void {
    this.publish?.({
      type: 'todo.written',
      agent: context.agent,
      session: context.session,
      ...(context.turn ? { turn: context.turn } : {}),
      data: { todos: outcome.todos },
    });
  }
}

const planKey = (agent: string, session: string): string => JSON.stringify([agent, session]);

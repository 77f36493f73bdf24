import { createActor, fromCallback, type Actor, type AnyActorRef } from 'xstate';
import { draftOf, type Bus, type Correlation, type Envelope, type EventData, type ToolCall } from '../bus/index.js';
import { WEB_SEARCH_TOOL } from '../adapters/providers/native-search.js';
import type { ToolSpec } from '../adapters/providers/provider.js';
import type { ModelRouter, RouterCallOptions } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { ToolContext } from '../adapters/tools/tool.js';
import { turnMachine, type BuiltPrompt, type ToolOutcome, type TurnEffects, type TurnEvent, type TurnOutput } from '../machines/turn.js';
import type { RunOutcome, TurnHooks } from './hooks/turn-hooks.js';
import { loopChecker, type LoopChecker } from './loop-checker.js';
import { stateName } from './machine-state.js';
import { turnEffects, type Deliver, type TurnWork } from './turn-effects.js';

export type TurnSettings = EventData<'turn.started'>['settings'];

/** The tools a turn may use right now: a discovery search can unlock more in the middle of a turn. */
export interface Toolbox {
  registry: ToolRegistry;
  /** Names exposed to the model (turn profile and AGENT.md `tools` applied). */
  names: string[];
  /** The specs of `names`, as sent to the model. */
  specs(): ToolSpec[];
}

export interface TurnPorts {
  bus: Bus;
  router: ModelRouter;
  toolbox: () => Toolbox;
  /** Builds the prompt when the machine asks (files are read then, so an edit reaches this very turn). */
  buildPrompt: () => BuiltPrompt;
  /** Everything a tool may know about the call besides its arguments. */
  toolContext: Omit<ToolContext, 'signal' | 'turn'>;
  /** The hook pipeline around model and tool calls; absent when no hook intercepts and no tool needs approval. */
  hooks?: TurnHooks;
  /** `tools.web.prefer_native`: while `web_search` is offered, a model with a search of its own searches with it. */
  preferNativeSearch?: boolean;
}

export interface TurnHandle {
  id: string;
  stop(): void;
  abort(reason: string): void;
  /** The machine's output and the event that ended the turn (none when it was aborted). */
  done: Promise<{ output: TurnOutput; ending?: Envelope }>;
}

const endings: ReadonlySet<string> = new Set(['turn.completed', 'turn.stopped', 'turn.failed']);

// Each turn actor leads to its turn's ports, so one provided machine and one effects actor serve every turn:
// providing a machine per turn builds it with cold caches, and an actor per turn costs more than its steps.
const hosted = new WeakMap<object, HostedTurn>();
const hostOf = (turn: object): HostedTurn => hosted.get(turn)!;

/** A tool's outcome for the hooks, which must know a sandbox refusal to leave it alone. */
async function executeNotingRefusal(registry: ToolRegistry, call: ToolCall, context: ToolContext): Promise<RunOutcome> {
  let refused = false;
  const result = await registry.execute(call.name, call.arguments, context, () => (refused = true));
  return { ...outcomeOf(result), refused };
}

/** What the turn keeps of a tool's result: its text, and the images the model is shown. */
function outcomeOf(result: Pick<RunOutcome, 'ok' | 'content' | 'images'>): ToolOutcome {
  return result.ok && result.images?.length ? { ok: true, content: result.content, images: result.images } : { ok: result.ok, content: result.content };
}

/** The real work of every turn, each found through the turn that asks for it. */
const hostWork: TurnWork = {
  buildPrompt: (turn) => hostOf(turn).ports.buildPrompt(),
  checkLoop: (call, turn) => {
    const host = hostOf(turn);
    host.loop ??= loopChecker(host.settings.loop_detection);
    return host.loop.check(call);
  },
  callModel: (call, signal, turn) => {
    const host = hostOf(turn);
    const { router, toolbox, hooks, preferNativeSearch } = host.ports;
    const box = toolbox();
    const nativeSearch = preferNativeSearch === true && box.names.includes(WEB_SEARCH_TOOL);
    if (!hooks) return router.chat(host.settings.model_name, { system: call.system, messages: call.messages, tools: box.specs(), nativeSearch }, host.callOptions(signal));
    // Hooks may change the request (not the tools offered) and the answer.
    const request = { model: host.settings.model_name, system: call.system, messages: call.messages, tools: box.names };
    return hooks.callModel(call.iteration, request, signal, (changed) =>
      router.chat(changed.model, { system: changed.system, messages: changed.messages, tools: box.specs(), nativeSearch }, host.callOptions(signal)));
  },
  runTool: async (call, signal, turn) => {
    const { ports, keys } = hostOf(turn);
    const box = ports.toolbox();
    // A tool the turn does not expose (turn profile, AGENT.md tools list, a hidden MCP tool) is refused here too,
    // before any hook is asked: no hook can bring it back.
    if (!box.names.includes(call.name)) return { ok: false, content: `tool "${call.name}" is not available in this turn` };
    const context = Object.assign({}, ports.toolContext, { turn: keys.turn, signal });
    const result = ports.hooks
      ? await ports.hooks.runTool(call, signal, (run) => executeNotingRefusal(box.registry, run, context))
      : await box.registry.execute(call.name, call.arguments, context);
    return outcomeOf(result);
  },
};

/** Each answer is the cause of the move it makes, as `actor.transitioned` says. */
const deliverNoted: Deliver = (turn, answer) => {
  hostOf(turn).cause = answer.type;
  turn.send(answer);
};

let effects: TurnEffects | undefined;
const effectsActor = (): TurnEffects => (effects ??= createActor(turnEffects(hostWork, deliverNoted), { id: 'turn-effects' }).start());

// Every turn actor is a child of this one, which ignores what its children tell it (a turn's end, its error): a
// root actor builds an actor system of its own, which no turn needs.
let turns: AnyActorRef | undefined;
const turnsActor = (): AnyActorRef => (turns ??= createActor(fromCallback(() => {}), { id: 'turns' }).start());

const hostedTurnMachine = turnMachine.provide({
  actions: {
    record: ({ self }, record) => {
      const turn = hostOf(self);
      const envelope = turn.ports.bus.publish(draftOf(turn.keys, record.type, record.data));
      if (endings.has(envelope.type)) turn.ending = envelope;
    },
  },
});

/**
 * One running turn: what the effects actor and the `record` action reach, and its handle. It publishes the turn
 * actor's state changes, so the dashboard and `tern inspect` can watch it think, and settles with its output: it is
 * the actor's one observer. The host knows each move's cause (it sends STOP and ABORT and every answer of the
 * effects actor), so no xstate inspection is needed: it calls back for every internal step. Methods, not closures:
 * xstate binds an observer's callbacks, and binding a closure made per turn took a slow path under tsx.
 */
class HostedTurn implements TurnHandle {
  /** Started at the turn's first tool call: a turn that calls no tool needs no loop detection. */
  loop?: LoopChecker;
  ending?: Envelope;
  /** The event that moves the machine next: the host sends every event the turn gets, so it knows each cause. */
  cause = 'xstate.init';
  readonly done: Promise<{ output: TurnOutput; ending?: Envelope }>;
  private readonly actor: Actor<typeof hostedTurnMachine>;
  private readonly actorId: string;
  /** The state last published. */
  private current: string | undefined;
  /** What the turn's model calls share: its signal, its keys and its chunk publisher. */
  private modelCall: RouterCallOptions | undefined;
  private settle!: (ended: { output: TurnOutput; ending?: Envelope }) => void;
  private fail!: (error: unknown) => void;

  constructor(readonly id: string, readonly keys: Correlation & { turn: string }, readonly settings: TurnSettings, readonly ports: TurnPorts) {
    this.actorId = `turn:${id}`;
    this.actor = createActor(hostedTurnMachine, {
      id: this.actorId,
      parent: turnsActor(),
      input: {
        modelName: settings.model_name,
        stream: settings.stream,
        maxToolIterations: settings.max_tool_iterations,
        loopDetection: settings.loop_detection,
        effects: effectsActor(),
      },
    });
    hosted.set(this.actor, this);
    this.done = new Promise((resolve, reject) => {
      this.settle = resolve;
      this.fail = reject;
    });
    this.actor.subscribe(this);
    this.actor.start();
  }

  stop(): void {
    this.send({ type: 'STOP' });
  }

  abort(reason: string): void {
    this.send({ type: 'ABORT', reason });
  }

  next(): void {
    const to = stateName(this.actor.getSnapshot().value);
    if (to === this.current) return;
    this.ports.bus.publish(draftOf(this.keys, 'actor.transitioned', { actor: this.actorId, machine: 'turn', from: this.current, to, event: this.cause }));
    this.current = to;
  }

  // The turn settles here, not in a callback of another promise: one promise and one microtask less per turn.
  complete(): void {
    try {
      this.next();
      this.settle(this.ended(this.actor.getSnapshot().output as TurnOutput));
    } catch (error) {
      this.fail(error);
    }
  }

  // `onChunk` is a method that needs no `this`: under tsx (the bench) an arrow in an object literal is given its
  // name anew each turn.
  callOptions(signal: AbortSignal): RouterCallOptions {
    const { keys, ports: { bus } } = this;
    if (this.modelCall?.signal !== signal) {
      this.modelCall = {
        signal,
        correlation: keys,
        onChunk(chunk) {
          bus.publish(draftOf(keys, 'provider.chunk', chunk));
        },
      };
    }
    return this.modelCall;
  }

  error(error: unknown): void {
    this.fail(error);
  }

  private send(event: TurnEvent): void {
    this.cause = event.type;
    this.actor.send(event);
  }

  private ended(output: TurnOutput): { output: TurnOutput; ending?: Envelope } {
    this.loop?.release();
    this.ports.bus.publish(draftOf(this.keys, 'actor.stopped', { actor: this.actorId, machine: 'turn', reason: output.outcome }));
    return { output, ending: this.ending };
  }
}

/** Runs one turn machine with the real model, tools and bus. `turn.started` must already be published. */
export function runTurn(id: string, correlation: Correlation, settings: TurnSettings, ports: TurnPorts): TurnHandle {
  return new HostedTurn(id, Object.assign({}, correlation, { turn: id }), settings, ports);
}

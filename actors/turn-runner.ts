import { createActor, fromPromise, toPromise, type Actor } from 'xstate';
import type { Bus, ChatResponse, Correlation, Envelope, EventData, ToolCall } from '../bus/index.js';
import type { ToolSpec } from '../adapters/providers/provider.js';
import type { ModelRouter } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { ToolContext } from '../adapters/tools/tool.js';
import { turnMachine, type BuiltPrompt, type LoopVerdict, type ModelCall, type ToolOutcome, type TurnEvent, type TurnOutput } from '../machines/turn.js';
import { loopChecker, type LoopChecker } from './loop-checker.js';
import { stateName } from './machine-state.js';

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
}

export interface TurnHandle {
  id: string;
  stop(): void;
  abort(reason: string): void;
  /** The machine's output and the event that ended the turn (none when it was aborted). */
  done: Promise<{ output: TurnOutput; ending?: Envelope }>;
}

const endings: ReadonlySet<string> = new Set(['turn.completed', 'turn.stopped', 'turn.failed']);

/** What the turn machine's provided actors and actions reach for one running turn. */
interface HostedTurn {
  ports: TurnPorts;
  keys: Correlation & { turn: string };
  settings: TurnSettings;
  /** Started at the turn's first tool call: a turn that calls no tool needs no loop detection. */
  loop?: LoopChecker;
  ending?: Envelope;
  /** The event that moves the machine next, as xstate names it: set by the host, which sends or settles it. */
  cause: string;
}

// One provided machine for every turn: providing builds a new machine with cold caches, which cost more than
// the rest of the turn's machinery. Each turn's actor system leads to that turn's ports.
const hosted = new WeakMap<object, HostedTurn>();
const hostOf = (system: object): HostedTurn => hosted.get(system)!;

/** Notes which event a provided actor's answer becomes for the turn machine (its invoke's done or error event). */
function settled<T>(system: object, self: { id: string }, work: Promise<T>): Promise<T> {
  const turn = hostOf(system);
  return work.then(
    (value) => {
      turn.cause = `xstate.done.actor.${self.id}`;
      return value;
    },
    (error: unknown) => {
      turn.cause = `xstate.error.actor.${self.id}`;
      throw error;
    },
  );
}

const hostedTurnMachine = turnMachine.provide({
  actors: {
    buildPrompt: fromPromise<BuiltPrompt>(({ system, self }) => settled(system, self, (async () => hostOf(system).ports.buildPrompt())())),
    checkLoop: fromPromise<LoopVerdict, { call: ToolCall }>(({ input, system, self }) => settled(system, self, (async () => {
      const turn = hostOf(system);
      turn.loop ??= loopChecker(turn.settings.loop_detection, `loop:${turn.keys.turn}`);
      return turn.loop.check(input.call);
    })())),
    callModel: fromPromise<ChatResponse, ModelCall>(({ input, signal, system, self }) => {
      const { ports, keys, settings } = hostOf(system);
      return settled(system, self, ports.router.chat(
        settings.model_name,
        { system: input.system, messages: input.messages, tools: ports.toolbox().specs() },
        { signal, correlation: keys, onChunk: (chunk) => ports.bus.publish({ ...keys, type: 'provider.chunk', data: chunk }) },
      ));
    }),
    runTool: fromPromise<ToolOutcome, { call: ToolCall }>(({ input, signal, system, self }) => settled(system, self, (async () => {
      const { ports, keys } = hostOf(system);
      const box = ports.toolbox();
      // A tool the turn does not expose (turn profile, AGENT.md tools list, a hidden MCP tool) is refused here too.
      if (!box.names.includes(input.call.name)) return { ok: false, content: `tool "${input.call.name}" is not available in this turn` };
      const result = await box.registry.execute(input.call.name, input.call.arguments, { ...ports.toolContext, turn: keys.turn, signal });
      return { ok: result.ok, content: result.content };
    })())),
  },
  actions: {
    record: ({ system }, record) => {
      const turn = hostOf(system);
      const envelope = turn.ports.bus.publish({ ...turn.keys, ...record } as Parameters<Bus['publish']>[0]);
      if (endings.has(envelope.type)) turn.ending = envelope;
    },
  },
});

/**
 * Publishes the turn actor's state changes, so the dashboard and `tern inspect` can watch it think. The host
 * knows each move's cause (it sends STOP and ABORT and settles every invoked actor), so no xstate inspection
 * is needed: inspection calls back for every internal step of every actor of the turn.
 */
function publishMoves(actor: Actor<typeof hostedTurnMachine>, turn: HostedTurn, actorId: string): void {
  let current: string | undefined;
  const moved = () => {
    const to = stateName(actor.getSnapshot().value);
    if (to === current) return;
    turn.ports.bus.publish({ ...turn.keys, type: 'actor.transitioned', data: { actor: actorId, machine: 'turn', from: current, to, event: turn.cause } });
    current = to;
  };
  actor.subscribe({ next: moved, complete: moved, error: () => {} });
}

/** Runs one turn machine with the real model, tools and bus. `turn.started` must already be published. */
export function runTurn(id: string, correlation: Correlation, settings: TurnSettings, ports: TurnPorts): TurnHandle {
  const keys = { ...correlation, turn: id };
  const actorId = `turn:${id}`;
  const actor = createActor(hostedTurnMachine, {
    id: actorId,
    input: {
      modelName: settings.model_name,
      stream: settings.stream,
      maxToolIterations: settings.max_tool_iterations,
      loopDetection: settings.loop_detection,
    },
  });
  const turn: HostedTurn = { ports, keys, settings, cause: 'xstate.init' };
  hosted.set(actor.system, turn);
  publishMoves(actor, turn, actorId);
  const done = toPromise(actor).then((output) => {
    turn.loop?.stop();
    ports.bus.publish({ ...keys, type: 'actor.stopped', data: { actor: actorId, machine: 'turn', reason: output.outcome } });
    return { output, ending: turn.ending };
  });
  actor.start();
  const send = (event: TurnEvent) => {
    turn.cause = event.type;
    actor.send(event);
  };
  return {
    id,
    stop: () => send({ type: 'STOP' }),
    abort: (reason) => send({ type: 'ABORT', reason }),
    done,
  };
}

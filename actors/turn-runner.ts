import { createActor, fromPromise, toPromise, type InspectionEvent } from 'xstate';
import type { Bus, ChatResponse, Correlation, Envelope, EventData, ToolCall } from '../bus/index.js';
import type { ToolSpec } from '../adapters/providers/provider.js';
import type { ModelRouter } from '../adapters/providers/router.js';
import type { ToolRegistry } from '../adapters/tools/registry.js';
import type { ToolContext } from '../adapters/tools/tool.js';
import { turnMachine, type BuiltPrompt, type LoopVerdict, type ModelCall, type ToolOutcome, type TurnOutput } from '../machines/turn.js';
import { loopChecker } from './loop-checker.js';
import { stateName } from './machine-state.js';

export type TurnSettings = EventData<'turn.started'>['settings'];

/** The tools a turn may use right now: a discovery search can unlock more in the middle of a turn. */
export interface Toolbox {
  registry: ToolRegistry;
  /** Names exposed to the model (turn profile and AGENT.md `tools` applied). */
  names: string[];
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

/** Publishes the turn actor's state changes, so the dashboard and `tern inspect` can watch it think. */
function transitions(bus: Bus, correlation: Correlation, actorId: string, root: () => unknown) {
  let current: string | undefined;
  return (inspection: InspectionEvent) => {
    if (inspection.type !== '@xstate.snapshot' || inspection.actorRef !== root()) return;
    const snapshot = inspection.snapshot as { value?: Parameters<typeof stateName>[0] };
    if (snapshot.value === undefined) return;
    const to = stateName(snapshot.value);
    if (to === current) return;
    bus.publish({ ...correlation, type: 'actor.transitioned', data: { actor: actorId, machine: 'turn', from: current, to, event: inspection.event.type } });
    current = to;
  };
}

function specsFor(tools: ToolRegistry, names: string[]): ToolSpec[] {
  const wanted = new Set(names);
  return tools.specs().filter((s) => wanted.has(s.name));
}

/** Runs one turn machine with the real model, tools and bus. `turn.started` must already be published. */
export function runTurn(id: string, correlation: Correlation, settings: TurnSettings, ports: TurnPorts): TurnHandle {
  const { bus, router } = ports;
  const keys = { ...correlation, turn: id };
  const loop = loopChecker(settings.loop_detection, `loop:${id}`);
  let ending: Envelope | undefined;
  const machine = turnMachine.provide({
    actors: {
      buildPrompt: fromPromise<BuiltPrompt>(async () => ports.buildPrompt()),
      checkLoop: fromPromise<LoopVerdict, { call: ToolCall }>(async ({ input }) => loop.check(input.call)),
      callModel: fromPromise<ChatResponse, ModelCall>(({ input, signal }) => {
        const box = ports.toolbox();
        return router.chat(
          settings.model_name,
          { system: input.system, messages: input.messages, tools: specsFor(box.registry, box.names) },
          { signal, correlation: keys, onChunk: (chunk) => bus.publish({ ...keys, type: 'provider.chunk', data: chunk }) },
        );
      }),
      runTool: fromPromise<ToolOutcome, { call: ToolCall }>(async ({ input, signal }) => {
        const box = ports.toolbox();
        // A tool the turn does not expose (turn profile, AGENT.md tools list, a hidden MCP tool) is refused here too.
        if (!box.names.includes(input.call.name)) return { ok: false, content: `tool "${input.call.name}" is not available in this turn` };
        const result = await box.registry.execute(input.call.name, input.call.arguments, { ...ports.toolContext, turn: id, signal });
        return { ok: result.ok, content: result.content };
      }),
    },
    actions: {
      record: (_, record) => {
        const envelope = bus.publish({ ...keys, ...record } as Parameters<Bus['publish']>[0]);
        if (endings.has(envelope.type)) ending = envelope;
      },
    },
  });
  const actorId = `turn:${id}`;
  let root: unknown;
  const actor = createActor(machine, {
    id: actorId,
    input: {
      modelName: settings.model_name,
      stream: settings.stream,
      maxToolIterations: settings.max_tool_iterations,
      loopDetection: settings.loop_detection,
    },
    inspect: transitions(bus, keys, actorId, () => root),
  });
  root = actor;
  const done = toPromise(actor).then((output) => {
    loop.stop();
    bus.publish({ ...keys, type: 'actor.stopped', data: { actor: actorId, machine: 'turn', reason: output.outcome } });
    return { output, ending };
  });
  actor.start();
  return {
    id,
    stop: () => actor.send({ type: 'STOP' }),
    abort: (reason) => actor.send({ type: 'ABORT', reason }),
    done,
  };
}

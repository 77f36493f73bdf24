import mittModule, { type Emitter, type EventType, type Handler } from 'mitt';
import type { Envelope } from './events/index.js';
import type { HookDecision, HookPoint } from './events/hook.js';
import type { ChatMessage, ChatResponse, ToolCall } from './events/provider.js';

/** Who asks and from where: every hook input carries it. */
export interface HookMeta {
  agent?: string;
  session?: string;
  session_key?: string;
  turn?: string;
  /** The channel kind the turn came from (`telegram`, `cli`, …) and its chat. */
  channel: string;
  chat: string;
}

/** A model call as the hooks see it: the system prompt apart from the messages; `tools` are the names offered. */
export interface ModelRequest {
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: string[];
}

export interface ToolResultView {
  ok: boolean;
  content: string;
}

/** What a hook is asked at each point of a turn. */
export type HookInput =
  | { point: 'before_llm'; meta: HookMeta; iteration: number; request: ModelRequest }
  | { point: 'after_llm'; meta: HookMeta; iteration: number; model: string; answer: ChatResponse }
  | { point: 'before_tool'; meta: HookMeta; call: ToolCall }
  | { point: 'after_tool'; meta: HookMeta; call: ToolCall; result: ToolResultView; duration_ms: number }
  | { point: 'approve_tool'; meta: HookMeta; call: ToolCall };

export type HookInputAt<P extends HookPoint> = Extract<HookInput, { point: P }>;

/**
 * A hook a turn asks and the bus notifies: a process speaking JSON-RPC over stdio, or a plugin's in-process
 * emitter. Timeouts and failures are the caller's business: `decide` rejects when the hook fails or `signal`
 * aborts, and the caller turns that into `continue` (interceptors) or a denial (approvers).
 */
export interface Hook {
  readonly name: string;
  /** Lower runs first; equal priorities run by name. */
  readonly priority: number;
  intercepts(point: HookPoint): boolean;
  observes(type: string): boolean;
  /** Hands an observed event over; rejects when it could not within `timeoutMs`. */
  observe(event: Envelope, timeoutMs: number): Promise<void>;
  decide(input: HookInput, signal: AbortSignal): Promise<HookDecision>;
  close(): Promise<void>;
}

/** One ask of an in-process hook: the input, and `decide` to answer it (once; later answers are ignored). */
export type HookAsk<P extends HookPoint> = HookInputAt<P> & {
  decide(decision: HookDecision | Promise<HookDecision>): void;
};

/** In-process hooks (plugins): a handler per point, and `event` for every bus event the hook observes. */
export type HookEvents = { [P in HookPoint]: HookAsk<P> } & { event: Envelope };

export type Hooks = Emitter<HookEvents>;

// mitt ships ESM at run time but CommonJS-shaped typings; this names the factory's real signature.
const mitt = mittModule as unknown as <E extends Record<EventType, unknown>>(
  all?: Map<keyof E, Handler[]>,
) => Emitter<E>;

export function createHooks(): Hooks {
  return mitt<HookEvents>();
}

const handles = (emitter: Hooks, type: keyof HookEvents): boolean => (emitter.all.get(type)?.length ?? 0) > 0;

/**
 * A plugin's emitter as a hook. A point with a handler is intercepted; the first decision a handler gives wins,
 * sync or async; a handler that throws fails the ask. Events reach `event` handlers synchronously.
 */
export function emitterHook(
  name: string,
  priority: number,
  emitter: Hooks,
  observes: (type: string) => boolean = () => true,
): Hook {
  return {
    name,
    priority,
    intercepts: (point) => handles(emitter, point),
    observes: (type) => handles(emitter, 'event') && observes(type),
    observe: async (event) => emitter.emit('event', event),
    decide: (input, signal) =>
      new Promise<HookDecision>((resolve, reject) => {
        const onAbort = (): void =>
          reject(signal.reason instanceof Error ? signal.reason : new Error('the hook gave no decision in time'));
        signal.addEventListener('abort', onAbort, { once: true });
        let decided = false;
        const decide = (decision: HookDecision | Promise<HookDecision>): void => {
          if (decided) return;
          decided = true;
          Promise.resolve(decision)
            .then(resolve, reject)
            .finally(() => signal.removeEventListener('abort', onAbort));
        };
        try {
          (emitter.emit as (type: HookPoint, ask: unknown) => void)(input.point, Object.assign({}, input, { decide }));
        } catch (error) {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        }
      }),
    close: async () => emitter.all.clear(),
  };
}

import mittModule, { type Emitter, type EventType, type Handler } from 'mitt';
import type { ToolCall } from './events/provider.js';
import type { Correlation } from './envelope.js';

/**
 * Synchronous in-actor hooks. Unlike bus events they run inside the actor before it acts, so an
 * interceptor can rewrite and an approval can refuse. Observers only read.
 */
export type HookEvents = {
  /** Before a tool runs: `deny(reason)` turns the call into a tool error the model sees. */
  'tool.before': { call: ToolCall; context: Correlation; deny: (reason: string) => void };
  /** After a tool ran, before the model sees the result: may replace `content`. */
  'tool.after': { call: ToolCall; context: Correlation; result: { ok: boolean; content: string } };
  /** Before a model call: observers may read the outgoing message count. */
  'provider.before': { context: Correlation; model_name: string; message_count: number };
};

export type Hooks = Emitter<HookEvents>;

// mitt ships ESM at run time but CommonJS-shaped typings; this names the factory's real signature.
const mitt = mittModule as unknown as <E extends Record<EventType, unknown>>(all?: Map<keyof E, Handler[]>) => Emitter<E>;

export function createHooks(): Hooks {
  return mitt<HookEvents>();
}

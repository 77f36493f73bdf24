import type * as z from 'zod';
import type { Correlation, Stamp } from '../envelope.js';
import { budgetEvents } from './budget.js';
import { clusterEvents } from './cluster.js';
import { evolutionEvents } from './evolution.js';
import { hookEvents } from './hook.js';
import { logEvents } from './log.js';
import { mcpEvents } from './mcp.js';
import { pairingEvents } from './pairing.js';
import { messageEvents } from './message.js';
import { pluginEvents } from './plugin.js';
import { providerEvents } from './provider.js';
import { subagentEvents } from './subagent.js';
import { systemEvents } from './system.js';
import { toolEvents } from './tool.js';
import { turnEvents } from './turn.js';

/**
 * Every event type Tern knows, each with its one data schema, built on first use (`lazySchema`). Domains add
 * theirs in their own file.
 */
export const eventCatalogue = {
  ...messageEvents,
  ...turnEvents,
  ...providerEvents,
  ...toolEvents,
  ...systemEvents,
  ...mcpEvents,
  ...budgetEvents,
  ...clusterEvents,
  ...evolutionEvents,
  ...subagentEvents,
  ...hookEvents,
  ...pluginEvents,
  ...pairingEvents,
  ...logEvents,
} as const;

export type EventCatalogue = typeof eventCatalogue;
export type EventType = keyof EventCatalogue;
export type EventSchema<T extends EventType> = ReturnType<EventCatalogue[T]>;
export type EventData<T extends EventType> = z.output<EventSchema<T>>;

/** A stamped event as the log stores it and the bus delivers it; a union discriminated by `type`. */
export type Envelope<T extends EventType = EventType> = T extends EventType
  ? Stamp & Correlation & { type: T; data: EventData<T> }
  : never;

/** What a publisher hands the bus: no `seq` yet, its data complete as the schema's output (defaults written out). */
export type EventDraft<T extends EventType = EventType> = T extends EventType
  ? Correlation & { type: T; data: EventData<T>; at?: number }
  : never;

/** A draft whose data passed its schema (defaults applied). */
export type ValidDraft<T extends EventType = EventType> = T extends EventType
  ? Correlation & { type: T; data: EventData<T>; at?: number }
  : never;

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(eventCatalogue, type);
}

export * from './budget.js';
export * from './cluster.js';
export * from './evolution.js';
export * from './hook.js';
export * from './mcp.js';
export * from './message.js';
export * from './pairing.js';
export * from './plugin.js';
export * from './provider.js';
export * from './subagent.js';
export * from './system.js';
export * from './tool.js';
export * from './turn.js';

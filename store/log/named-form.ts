import type { Envelope } from '../../bus/index.js';
import { isBlobKey, type BlobStore } from './blobs.js';
import type { Names } from './names.js';

/**
 * The strings an event repeats from the events before it, kept by number (`Names`): its type and session, a machine's
 * name and states, a session key; an actor named for the turn or session the event belongs to is kept as which of the
 * two it is, and a turn's settings (the same each turn) as a blob. `withNames` puts them back, in the same places, so
 * the event reads back byte for byte as it was published. An event stored by number has a numeric `type`; events of
 * logs written before this form (#38) have a string and are read as they are.
 */
type Data = Record<string, unknown>;
type Stored = Omit<Envelope, 'type' | 'session'> & { type: number; session?: number };

/** Events that mark a rewrite of the log stay whole: `tern log verify` reads their type from raw pages. */
const WHOLE = new Set(['log.compacted', 'data.forgotten']);
const ACTOR_TYPES = new Set(['actor.transitioned', 'actor.stopped']);
const KEYED_TYPES = new Set(['message.routed', 'turn.started']);
const MACHINE_FIELDS = ['machine', 'from', 'to', 'event'] as const;
/** `data.actor` of an actor event that is the event's own turn or session. */
const OWN_TURN = 0;
const OWN_SESSION = 1;

export const isNumbered = (event: { type: unknown }): boolean => typeof event.type === 'number';

/** The event as the log stores it: a new object (the appended one is left alone); already numbered ones as they are. */
export function numberedForm(event: Envelope, names: Names, blobs: BlobStore | undefined): Envelope {
  if (isNumbered(event) || WHOLE.has(event.type)) return event;
  const stored: Stored = { ...event, type: names.number(event.type) } as Stored;
  if (event.session !== undefined) stored.session = names.number(event.session);
  const data = event.data as Data | undefined;
  if (data && ACTOR_TYPES.has(event.type)) {
    const own =
      data.actor === `turn:${event.turn}` ? OWN_TURN : data.actor === `session:${event.session}` ? OWN_SESSION : -1;
    const copy: Data = { ...data, ...(own >= 0 ? { actor: own } : {}) };
    for (const field of MACHINE_FIELDS) if (typeof data[field] === 'string') copy[field] = names.number(data[field]);
    stored.data = copy as never;
  } else if (data && KEYED_TYPES.has(event.type)) {
    const copy: Data = { ...data };
    if (typeof data.session_key === 'string') copy.session_key = names.number(data.session_key);
    if (blobs && data.settings !== undefined) copy.settings = blobs.put(data.settings);
    stored.data = copy as never;
  }
  return stored as unknown as Envelope;
}

/**
 * The event as it was appended, from its stored form (`numberedForm`). It is changed in place: each read decodes a new
 * object, and a copy per event halved the log's read rate.
 */
export function withNames(event: Envelope, names: Names | undefined, blobs: BlobStore | undefined): Envelope {
  if (!isNumbered(event) || !names) return event;
  const stored = event as unknown as Omit<Stored, 'type' | 'session'> & { type: number | string; session?: unknown };
  const type = names.name(stored.type as number);
  stored.type = type;
  if (stored.session !== undefined) stored.session = names.name(stored.session as number);
  const data = stored.data as Data | undefined;
  if (data && ACTOR_TYPES.has(type)) {
    if (data.actor === OWN_TURN) data.actor = `turn:${stored.turn}`;
    else if (data.actor === OWN_SESSION) data.actor = `session:${stored.session}`;
    for (const field of MACHINE_FIELDS) if (typeof data[field] === 'number') data[field] = names.name(data[field]);
  } else if (data && KEYED_TYPES.has(type)) {
    if (typeof data.session_key === 'number') data.session_key = names.name(data.session_key);
    if (blobs && isBlobKey(data.settings)) data.settings = blobs.get(data.settings);
  }
  return event;
}

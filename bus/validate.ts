import { correlationSchema } from './envelope.js';
import { InvalidEventError } from './errors.js';
import { eventCatalogue, isEventType, type EventDraft, type EventType, type ValidDraft } from './events/index.js';
import { compileFastParse, DECLINED, type FastParse } from './fast-parse.js';

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string[] {
  return issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
}

/** What `correlationSchema` accepts for one key, checked without building a parse result on every publish. */
const isKey = (value: unknown): boolean => value === undefined || (typeof value === 'string' && value.length > 0);

/** Each type's compiled parser, built on its first publish; `null` where zod parses every event of the type. */
const fastParses = new Map<EventType, FastParse | null>();

function fastParseOf(type: EventType): FastParse | null {
  let parse = fastParses.get(type);
  if (parse === undefined) {
    parse = compileFastParse(eventCatalogue[type]()) ?? null;
    fastParses.set(type, parse);
  }
  return parse;
}

/** The data as its schema returns it: from the compiled parser when it accepts, else from zod, which names what is wrong. */
function parseData(type: EventType, data: unknown): unknown {
  const fast = fastParseOf(type)?.(data) ?? DECLINED;
  if (fast !== DECLINED) return fast;
  const parsed = eventCatalogue[type]().safeParse(data);
  if (!parsed.success) throw new InvalidEventError(type, describe(parsed.error.issues));
  return parsed.data;
}

/** Checks a draft against the catalogue and applies the data schema's defaults. */
export function validateDraft<T extends EventType>(draft: EventDraft<T>): ValidDraft<T> {
  const type: string = draft.type;
  if (!isEventType(type)) throw new InvalidEventError(type, ['unknown event type']);
  if (!(isKey(draft.agent) && isKey(draft.session) && isKey(draft.turn) && isKey(draft.parent) && isKey(draft.task))) {
    const keys = correlationSchema().safeParse({ agent: draft.agent, session: draft.session, turn: draft.turn, parent: draft.parent, task: draft.task });
    if (!keys.success) throw new InvalidEventError(type, describe(keys.error.issues));
  }
  const data = parseData(type, draft.data);
  // Copied, then `data` set: `{ ...draft, data }` of a draft built as publishers build it costs three times as much.
  const valid: Record<string, unknown> = Object.assign({}, draft);
  valid.data = data;
  return valid as ValidDraft<T>;
}

import { correlationSchema } from './envelope.js';
import { InvalidEventError } from './errors.js';
import { eventCatalogue, isEventType, type EventDraft, type EventType, type ValidDraft } from './events/index.js';

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string[] {
  return issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
}

/** What `correlationSchema` accepts for one key, checked without building a parse result on every publish. */
const isKey = (value: unknown): boolean => value === undefined || (typeof value === 'string' && value.length > 0);

/** Checks a draft against the catalogue and applies the data schema's defaults. */
export function validateDraft<T extends EventType>(draft: EventDraft<T>): ValidDraft<T> {
  const type: string = draft.type;
  if (!isEventType(type)) throw new InvalidEventError(type, ['unknown event type']);
  if (!(isKey(draft.agent) && isKey(draft.session) && isKey(draft.turn))) {
    const keys = correlationSchema().safeParse({ agent: draft.agent, session: draft.session, turn: draft.turn });
    if (!keys.success) throw new InvalidEventError(type, describe(keys.error.issues));
  }
  const data = eventCatalogue[type]().safeParse(draft.data);
  if (!data.success) throw new InvalidEventError(type, describe(data.error.issues));
  // Copied, then `data` set: `{ ...draft, data }` of a draft built as publishers build it costs three times as much.
  const valid: Record<string, unknown> = Object.assign({}, draft);
  valid.data = data.data;
  return valid as ValidDraft<T>;
}

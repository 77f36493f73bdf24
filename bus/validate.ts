import { correlationSchema } from './envelope.js';
import { InvalidEventError } from './errors.js';
import { eventCatalogue, isEventType, type EventDraft, type EventType, type ValidDraft } from './events/index.js';

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string[] {
  return issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
}

/** Checks a draft against the catalogue and applies the data schema's defaults. */
export function validateDraft<T extends EventType>(draft: EventDraft<T>): ValidDraft<T> {
  const type: string = draft.type;
  if (!isEventType(type)) throw new InvalidEventError(type, ['unknown event type']);
  const keys = correlationSchema.safeParse({ agent: draft.agent, session: draft.session, turn: draft.turn });
  if (!keys.success) throw new InvalidEventError(type, describe(keys.error.issues));
  const data = eventCatalogue[type].safeParse(draft.data);
  if (!data.success) throw new InvalidEventError(type, describe(data.error.issues));
  return { ...draft, data: data.data } as ValidDraft<T>;
}

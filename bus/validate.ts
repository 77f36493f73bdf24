import { isDeepStrictEqual } from 'node:util';
import { correlationSchema } from './envelope.js';
import { InvalidEventError } from './errors.js';
import { eventCatalogue, isEventType, type EventDraft, type EventType, type ValidDraft } from './events/index.js';

function describe(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string[] {
  return issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
}

/**
 * Parses a draft that came from outside the runtime (another process, a file, a test) with its event type's zod
 * schema: unknown types, bad keys and bad data throw `InvalidEventError` naming each problem; defaults are applied.
 */
export function validateDraft<T extends EventType>(draft: EventDraft<T>): ValidDraft<T> {
  const type: string = draft.type;
  if (!isEventType(type)) throw new InvalidEventError(type, ['unknown event type']);
  const keys = correlationSchema().safeParse({
    agent: draft.agent,
    session: draft.session,
    turn: draft.turn,
    parent: draft.parent,
    task: draft.task,
  });
  if (!keys.success) throw new InvalidEventError(type, describe(keys.error.issues));
  const parsed = eventCatalogue[type]().safeParse(draft.data);
  if (!parsed.success) throw new InvalidEventError(type, describe(parsed.error.issues));
  return { ...draft, data: parsed.data } as ValidDraft<T>;
}

/**
 * `AGENT_CHECK_EVENTS=1` (the test runner sets it): every draft the runtime publishes is parsed too, and must already
 * be exactly what its schema returns (defaults written out, no stray keys), so the unchecked path is the same.
 */
const checking = process.env.AGENT_CHECK_EVENTS === '1';

/**
 * What the bus stamps: a copy of the draft. The runtime's drafts are typed with each schema's output (`EventDraft`),
 * so they are not parsed a second time on the way to the log; only the type name is checked.
 */
export function acceptDraft<T extends EventType>(draft: EventDraft<T>): ValidDraft<T> {
  const type: string = draft.type;
  if (!isEventType(type)) throw new InvalidEventError(type, ['unknown event type']);
  if (checking) {
    const parsed = validateDraft(draft);
    if (!isDeepStrictEqual(parsed.data, draft.data)) {
      throw new InvalidEventError(type, [
        `the draft's data is not its schema's output: ` +
          `${JSON.stringify(draft.data)} parses to ${JSON.stringify(parsed.data)}`,
      ]);
    }
  }
  return Object.assign({}, draft) as ValidDraft<T>;
}

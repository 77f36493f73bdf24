import type { Correlation } from './envelope.js';
import type { EventData, EventDraft, EventType } from './events/index.js';

/**
 * A draft of `type` under the correlation keys, in the order publishers write it (keys, `type`, `data`). Built by
 * copying the keys and then setting, because `{ ...keys, type, data }` (a spread followed by new keys) takes a slow
 * path in V8 on Node 20, and a turn publishes a few dozen.
 */
export function draftOf<T extends EventType>(keys: Correlation, type: T, data: EventData<T>): EventDraft<T> {
  const draft: Record<string, unknown> = Object.assign({}, keys);
  draft.type = type;
  draft.data = data;
  return draft as EventDraft<T>;
}

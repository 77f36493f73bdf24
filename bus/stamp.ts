import type { Envelope, ValidDraft } from './events/index.js';

/**
 * The envelope of a validated draft: its keys in the draft's order, then `seq` and `at`. Built by copying and
 * then setting, because `{ ...draft, seq, at }` (a spread followed by new keys) takes a slow path in V8 on
 * Node 20, and every event is stamped.
 */
export function stampDraft(draft: ValidDraft, seq: number, at: number): Envelope {
  return stampInPlace(Object.assign({}, draft), seq, at);
}

/**
 * `stampDraft` without the copy, for a draft nobody else holds (the bus's validated copy): one object less per event.
 */
export function stampInPlace(draft: ValidDraft, seq: number, at: number): Envelope {
  const envelope = draft as Record<string, unknown>;
  envelope.seq = seq;
  envelope.at = at;
  return envelope as Envelope;
}

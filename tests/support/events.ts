import type { EventDraft } from '../../bus/index.js';

/** A small valid event for log tests: a provider chunk of the given session and turn. */
export function chunk(
  session: string | undefined,
  turn: string | undefined,
  delta = 'hello',
): EventDraft<'provider.chunk'> {
  return { type: 'provider.chunk', agent: 'main', session, turn, data: { kind: 'text', delta } };
}

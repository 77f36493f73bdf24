/**
 * `agents.defaults.split_on_marker`, as the peer runtime has it: the model is asked to part its answer with this
 * marker, and a channel sends each part as a message of its own (blank parts dropped).
 */
export const SPLIT_MARKER = '<|[SPLIT]|>';

export const SPLIT_NOTE =
  `Chat in several short messages rather than one long one: put ${SPLIT_MARKER} between the parts of an answer ` +
  `(for example: First part${SPLIT_MARKER}Second part). Each part is sent as a message of its own.`;

/** The reply's parts between markers, trimmed, blank ones left out; a reply without a part is itself. */
export function splitOnMarker(text: string): string[] {
  const parts = text
    .split(SPLIT_MARKER)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return parts.length > 0 ? parts : [text];
}

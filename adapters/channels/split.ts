const FENCE = /^\s*(`{3,}|~{3,})/;
/** Room kept in every part for the line that closes a code block cut in two. */
const CLOSING_ROOM = 16;

function hardCut(line: string, max: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < line.length; i += max) pieces.push(line.slice(i, i + max));
  return pieces;
}

/** The fence lines in effect after each line: the opening line while inside a code block, else undefined. */
function fenceStates(lines: string[]): Array<string | undefined> {
  let open: string | undefined;
  return lines.map((line) => {
    if (FENCE.test(line)) open = open === undefined ? line.trim() : undefined;
    return open;
  });
}

/**
 * Cuts a reply into parts of at most `max` characters, at line breaks where possible. A code block cut in
 * two is closed at the end of one part and reopened (same fence and language) at the start of the next,
 * so every part renders on its own.
 */
export function splitMessage(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const budget = Math.max(1, max - CLOSING_ROOM);
  const lines = text.split('\n');
  const states = fenceStates(lines);
  const parts: string[] = [];
  let current: string[] = [];
  let size = 0;
  let reopened = 0;
  lines.forEach((line, index) => {
    const openBefore = index > 0 ? states[index - 1] : undefined;
    for (const piece of line.length > budget ? hardCut(line, budget) : [line]) {
      if (size + piece.length + 1 > budget && current.length > reopened) {
        const closing = openBefore ? `\n${FENCE.exec(openBefore)?.[1] ?? '```'}` : '';
        parts.push(current.join('\n') + closing);
        current = openBefore ? [openBefore] : [];
        reopened = current.length;
        size = openBefore ? openBefore.length + 1 : 0;
      }
      current.push(piece);
      size += piece.length + 1;
    }
  });
  if (current.length > reopened) parts.push(current.join('\n'));
  return parts;
}

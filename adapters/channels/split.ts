const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/**
 * Inline formatting a cut must not fall into: code spans, bold, italic with underscores, strikethrough, spoilers,
 * Markdown links and the `<…>` entities of Slack and Discord (`<@U123>`, `<https://x|label>`). A URL has no blank in
 * it, so no boundary falls inside one anyway.
 */
const ENTITY =
  /`[^`\n]+`|\*\*[^\n]+?\*\*|__[^\n]+?__|~~[^\n]+?~~|\|\|[^\n]+?\|\||\[[^\]\n]*\]\([^)\s]*\)|<[^<>\s][^<>\n]*>/g;

/** Ends of a sentence: the mark, then closing quotes or brackets, then a blank. */
const SENTENCE_END = /[.!?…。！？]["'”’)\]]*(?=\s)/g;

interface Span {
  start: number;
  end: number;
}

interface CodeBlock extends Span {
  /** The opening fence line, as written (language included), and the fence that closes it. */
  opener: string;
  fence: string;
}

/** Where one part may end (`at`) and the next begin (`resume`, after the blanks between them). */
interface Cut {
  at: number;
  resume: number;
}

function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { start: number; opener: string; fence: string } | undefined;
  let offset = 0;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (fence && !open) open = { start: offset, opener: line, fence };
    else if (fence && open && fence[0] === open.fence[0] && fence.length >= open.fence.length) {
      blocks.push({ ...open, end: offset + line.length });
      open = undefined;
    }
    offset += line.length + 1;
  }
  if (open) blocks.push({ ...open, end: text.length });
  return blocks;
}

function entities(text: string, blocks: CodeBlock[]): Span[] {
  const spans: Span[] = [];
  for (const match of text.matchAll(ENTITY)) {
    const span = { start: match.index, end: match.index + match[0].length };
    if (!blocks.some((b) => span.start >= b.start && span.start < b.end)) spans.push(span);
  }
  return spans;
}

const inside = (spans: readonly Span[], at: number): boolean => spans.some((s) => s.start < at && at < s.end);

/** The blanks from `at` on: where the next part starts. */
function afterBlanks(text: string, at: number): number {
  let i = at;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** Boundaries of one kind within `text[from, to]`, in order. */
function boundaries(text: string, kind: 'paragraph' | 'line' | 'sentence' | 'word', from: number, to: number): Cut[] {
  const pattern = { paragraph: /\n[ \t]*\n/g, line: /\n/g, sentence: SENTENCE_END, word: /\s+/g }[kind];
  pattern.lastIndex = from;
  const cuts: Cut[] = [];
  for (let match = pattern.exec(text); match && match.index <= to; match = pattern.exec(text)) {
    const at = kind === 'sentence' ? match.index + match[0].length : match.index;
    if (at > from && at <= to) cuts.push({ at, resume: afterBlanks(text, at) });
    if (match[0].length === 0) pattern.lastIndex++;
  }
  return cuts;
}

/** Never between the two halves of a character outside the Basic Multilingual Plane (an emoji). */
function hardCut(text: string, at: number): Cut {
  const code = text.charCodeAt(at - 1);
  const end = code >= 0xd800 && code <= 0xdbff && at > 1 ? at - 1 : at;
  return { at: end, resume: end };
}

/**
 * The cut of the first part of `text` (longer than `max`), outside code blocks and formatting: the last paragraph
 * break, else the last line break, else the last sentence end, each only when it keeps the part at least half full;
 * else the last blank between words. A code block that fits in a part is never cut: the part ends before it.
 */
function plainCut(text: string, max: number, blocked: readonly Span[]): Cut {
  const allowed = (cut: Cut) => !inside(blocked, cut.at);
  for (const kind of ['paragraph', 'line', 'sentence'] as const) {
    const cut = boundaries(text, kind, 0, max).filter(allowed).at(-1);
    if (cut && cut.at >= max / 2) return cut;
  }
  const word = boundaries(text, 'word', 0, max).filter(allowed).at(-1);
  if (word) return word;
  const any = (['paragraph', 'line', 'sentence'] as const).flatMap((kind) =>
    boundaries(text, kind, 0, max).filter(allowed),
  );
  return any.sort((a, b) => b.at - a.at)[0] ?? hardCut(text, max);
}

/** Inside a code block too long for any part: at its last line break that leaves room to close it. */
function blockCut(text: string, max: number, block: CodeBlock): Cut {
  const room = max - block.fence.length - 1;
  const firstLine = block.start + block.opener.length;
  const line = boundaries(text, 'line', firstLine, room).at(-1);
  if (line) return { at: line.at, resume: line.at + 1 };
  const word = boundaries(text, 'word', firstLine + 1, room).at(-1);
  return word ?? hardCut(text, Math.max(firstLine + 1, room));
}

/**
 * Cuts a reply into parts of at most `max` characters, each readable on its own: at a paragraph break, else a
 * sentence end, else a blank between words, never inside a word, a formatting entity (`**bold**`, `` `code` ``, a
 * link) or a code block. Only a code block longer than a part is cut, at a line break: it is closed at the end of one
 * part and reopened (same fence and language) at the start of the next. A word longer than a part is cut where it must.
 */
export function splitMessage(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const blocks = codeBlocks(rest);
    // A block whose fence line alone fills half a part is cut as text: reopening it would leave no room.
    const long = blocks.find((b) => b.start < max && b.end > max && b.end - b.start > max && b.opener.length < max / 2);
    if (long && (long.start === 0 || rest.slice(0, long.start).trim() === '' || long.start < max / 2)) {
      const cut = blockCut(rest, max, long);
      parts.push(`${rest.slice(0, cut.at)}\n${long.fence}`);
      rest = `${long.opener}\n${rest.slice(cut.resume)}`;
      continue;
    }
    const cut = plainCut(rest, max, [...blocks, ...entities(rest, blocks)]);
    parts.push(rest.slice(0, cut.at));
    rest = rest.slice(cut.resume);
  }
  if (rest.trim() !== '' || parts.length === 0) parts.push(rest);
  return parts;
}

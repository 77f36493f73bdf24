// IRC carries one line per message, at most 512 bytes with the prefix the server puts before it when it relays it:
// a reply is cut into lines that fit, between words where a line has room for one.

/** Room the relayed prefix `:nick!user@host PRIVMSG target :` and CRLF take, with the longest host (63 bytes). */
export function lineBudget(nick: string, user: string, target: string): number {
  const prefix = 1 + nick.length + 1 + user.length + 1 + 63 + 1;
  return 510 - prefix - ('PRIVMSG '.length + Buffer.byteLength(target) + 2);
}

/** The longest start of `text` that fits `bytes`, never inside a character. */
function fitting(text: string, bytes: number): string {
  let used = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (used + size > bytes) break;
    used += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * One line of text as pieces of at most `bytes` bytes. A cut falls after a space where the piece keeps at least half
 * its room (the space stays at the end of the piece), so the pieces joined again are the line.
 */
export function cutLine(line: string, bytes: number): string[] {
  const pieces: string[] = [];
  let rest = line;
  while (Buffer.byteLength(rest) > bytes) {
    const room = fitting(rest, bytes);
    const space = room.lastIndexOf(' ');
    const piece = space >= room.length / 2 ? room.slice(0, space + 1) : room;
    pieces.push(piece);
    rest = rest.slice(piece.length);
  }
  pieces.push(rest);
  return pieces;
}

/** One IRC line to send; `concat` joins it to the line before without a line break (`draft/multiline-concat`). */
export interface IrcLine {
  text: string;
  concat: boolean;
}

/** A message's lines, each cut to `bytes`. */
export function toLines(text: string, bytes: number): IrcLine[] {
  return text
    .split(/\r\n|\n|\r/)
    .flatMap((line) => cutLine(line, bytes).map((piece, i) => ({ text: piece, concat: i > 0 })));
}

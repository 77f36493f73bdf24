/**
 * Request bodies written into shared 96 KB slabs. A chat body is 10–20 KB, above the 4 KB under which Node
 * pools Buffers, and an ArrayBuffer of its own cost ~3 µs of CPU here (and its sweep in a later collection).
 * A slab lives as long as any body cut from it; nothing is ever written twice into a part handed out. Slabs
 * stay under malloc's 128 KB mmap threshold: a larger one came as fresh pages, each faulted in when written.
 */
const SLAB_SIZE = 96 * 1024;
const LARGEST = SLAB_SIZE / 3;
/**
 * Bytes left free in front of each body for its request's head, so head and body go out as one buffer in one
 * write (`withHead`): a `writev` of the two cost more (Node's writev path, the stream's cork machinery).
 */
const HEAD_ROOM = 1024;
/** The most bytes one UTF-16 code unit pair takes in UTF-8. */
const WIDEST_CHARACTER = 4;

let slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
let used = 0;
/** The body cut last, while the room in front of it is unwritten: the one a head may still go in front of. */
let roomy: Buffer | undefined;

function dedicated(head: readonly string[], tail: Buffer): Buffer {
  return Buffer.concat([Buffer.from(head.join('')), tail]);
}

/** The pieces of `head` in UTF-8, one after another, then `tail`, in one buffer. */
export function joinedBody(head: readonly string[], tail: Buffer): Buffer {
  // Each piece takes at least a byte per code unit; it is written without measuring it first (a second pass)
  // and without joining it to the others (a copy of the whole head).
  roomy = undefined;
  const units = head.reduce((sum, piece) => sum + piece.length, tail.length);
  if (units > LARGEST) return dedicated(head, tail);
  if (used + HEAD_ROOM + units > SLAB_SIZE) {
    slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
    used = 0;
  }
  const start = used + HEAD_ROOM;
  const end = SLAB_SIZE - tail.length;
  let offset = start;
  for (const piece of head) {
    const room = end - offset;
    const written = slab.write(piece, offset, room);
    // `write` stops before a character that does not fit, so with room for the widest one to spare, none was left out.
    if (room - written < WIDEST_CHARACTER && written < Buffer.byteLength(piece)) return dedicated(head, tail);
    offset += written;
  }
  offset += tail.copy(slab, offset);
  const body = slab.subarray(start, offset);
  // Each body's room starts on an 8-byte boundary, which keeps the body's copies aligned.
  used = (offset + 7) & ~7;
  roomy = body;
  return body;
}

/**
 * `head` (Latin-1, as a request head is written) and `body` in one buffer: the head written into the room left
 * in front of the body, when `body` is the last one cut and the room is free and large enough. Each room is
 * written at most once, so a buffer handed out before never changes.
 */
export function withHead(head: string, body: Buffer): Buffer | undefined {
  if (body !== roomy || head.length > HEAD_ROOM) return undefined;
  roomy = undefined;
  const start = body.byteOffset - head.length;
  slab.write(head, start, head.length, 'latin1');
  return slab.subarray(start, body.byteOffset + body.length);
}

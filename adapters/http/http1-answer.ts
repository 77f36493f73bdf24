/** A whole HTTP/1.1 answer as read off a connection. */
export interface ParsedAnswer {
  statusCode: number;
  /** Header names and values, one after the other, as sent. */
  rawHeaders: string[];
  body: Buffer;
  /** Whether the connection may carry another request: HTTP/1.1 without `connection: close`, body framed. */
  reusable: boolean;
  /** The server's `keep-alive: timeout=N`, in milliseconds. */
  keepAliveMs: number | undefined;
}

/** An answer that breaks HTTP/1.1's framing; coded as llhttp codes its refusals. */
export class AnswerFormatError extends Error {
  readonly code = 'HPE_INVALID_ANSWER';
  constructor(message: string) {
    super(message);
    this.name = 'AnswerFormatError';
  }
}

type Step = 'head' | 'length' | 'size' | 'data' | 'data-end' | 'trailer' | 'close' | 'done';

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const MAX_HEAD = 64 * 1024;
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: |$)/;
const CHUNK_SIZE = /^[0-9a-fA-F]{1,12}$/;
const DIGITS = /^\d{1,15}$/;
const KEEP_ALIVE_TIMEOUT = /(?:^|[\s,])timeout=(\d+)/i;

/** Where the line starting at `start` ends: its CRLF, or the end of the head. */
function lineEnd(head: string, start: number): number {
  const end = head.indexOf('\r\n', start);
  return end < 0 ? head.length : end;
}

/** Whether the lower-case, comma-separated `list` names `token`; most lists are one token alone, and not split. */
const hasToken = (list: string, token: string): boolean => list === token || (list.includes(',') && list.split(',').some((part) => part.trim() === token));

/**
 * `data[start, end)` in a buffer of its own, which outlives the pushed one. `Buffer.copyBytesFrom` made a typed
 * array of its own (an `ArrayBuffer` each time) before copying that into the result; small copies come from
 * Node's pool here.
 */
function copyOf(data: Buffer, start: number, end: number): Buffer {
  const copy = Buffer.allocUnsafe(end - start);
  data.copy(copy, 0, start, end);
  return copy;
}

/**
 * Reads one answer from the bytes of a connection as they arrive: the head, then the body framed by
 * `content-length`, by chunks, or by the end of the connection. Interim (1xx) answers are skipped. It keeps
 * copies of the bytes it needs later, never the pushed buffer itself, which its connection reads into again.
 */
export class AnswerParser {
  private step: Step = 'head';
  /** Bytes of an unfinished head, chunk-size line or trailer, kept until the rest arrives. */
  private carry: Buffer | undefined;
  private remaining = 0;
  private readonly parts: Buffer[] = [];
  private answer: Omit<ParsedAnswer, 'body'> = { statusCode: 0, rawHeaders: [], reusable: false, keepAliveMs: undefined };
  private leftover = false;

  /** Ready for the next answer on the same connection. */
  reset(): void {
    this.step = 'head';
    this.carry = undefined;
    this.parts.length = 0;
    this.leftover = false;
  }

  /** Read through a method: `push` narrows `step`, which each step then changes. */
  private get done(): boolean {
    return this.step === 'done';
  }

  /** Takes the next bytes; returns the answer once it is whole. Throws `AnswerFormatError` for a malformed one. */
  push(chunk: Buffer): ParsedAnswer | undefined {
    if (this.step === 'done') {
      this.leftover = true;
      return undefined;
    }
    const data = this.carry === undefined ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = undefined;
    let at = 0;
    while (!this.done && at < data.length) {
      const next = this.advance(data, at);
      if (next < 0) {
        this.keep(data, at);
        return undefined;
      }
      at = next;
    }
    if (!this.done) return undefined;
    if (at < data.length) this.leftover = true;
    return this.whole();
  }

  /** The connection ended: the answer, if its body was the rest of the connection. */
  end(): ParsedAnswer | undefined {
    if (this.step !== 'close') return undefined;
    this.step = 'done';
    return this.whole();
  }

  private whole(): ParsedAnswer {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    const { statusCode, rawHeaders, reusable, keepAliveMs } = this.answer;
    return { statusCode, rawHeaders, body, reusable: reusable && !this.leftover, keepAliveMs };
  }

  private keep(data: Buffer, at: number): void {
    if (data.length - at > MAX_HEAD) throw new AnswerFormatError('answer head or chunk line too long');
    this.carry = copyOf(data, at, data.length);
  }

  /** One step from `at`: where the next starts, or -1 when the step needs more bytes. */
  private advance(data: Buffer, at: number): number {
    switch (this.step) {
      case 'head': {
        const end = data.indexOf(HEAD_END, at);
        if (end < 0) return -1;
        this.readHead(data.toString('latin1', at, end));
        return end + HEAD_END.length;
      }
      case 'length':
      case 'data': {
        const take = Math.min(this.remaining, data.length - at);
        if (take > 0) this.parts.push(copyOf(data, at, at + take));
        this.remaining -= take;
        if (this.remaining === 0) this.step = this.step === 'length' ? 'done' : 'data-end';
        return at + take;
      }
      case 'data-end': {
        if (data.length - at < CRLF.length) return -1;
        if (data[at] !== 0x0d || data[at + 1] !== 0x0a) throw new AnswerFormatError('chunk not followed by CRLF');
        this.step = 'size';
        return at + CRLF.length;
      }
      case 'size': {
        const end = data.indexOf(CRLF, at);
        if (end < 0) return -1;
        this.readChunkSize(data.toString('latin1', at, end));
        return end + CRLF.length;
      }
      case 'trailer': {
        const end = data.indexOf(CRLF, at);
        if (end < 0) return -1;
        if (end === at) this.step = 'done';
        return end + CRLF.length;
      }
      case 'close':
        this.parts.push(copyOf(data, at, data.length));
        return data.length;
      case 'done':
        return at;
    }
  }

  private readChunkSize(line: string): void {
    const semicolon = line.indexOf(';');
    const size = (semicolon < 0 ? line : line.slice(0, semicolon)).trim();
    if (!CHUNK_SIZE.test(size)) throw new AnswerFormatError(`invalid chunk size: ${JSON.stringify(line.slice(0, 40))}`);
    this.remaining = parseInt(size, 16);
    this.step = this.remaining === 0 ? 'trailer' : 'data';
  }

  private readHead(head: string): void {
    const statusEnd = lineEnd(head, 0);
    const status = STATUS_LINE.exec(head.slice(0, statusEnd));
    if (status === null) throw new AnswerFormatError(`invalid status line: ${JSON.stringify(head.slice(0, Math.min(statusEnd, 40)))}`);
    const statusCode = Number(status[2]);
    // Interim answers (100 Continue, 103 Early Hints) come before the real one.
    if (statusCode < 200) return;
    const rawHeaders: string[] = [];
    let length: string | undefined;
    let chunked = false;
    let encoded = false;
    let reusable = status[1] === '1';
    let keepAliveMs: number | undefined;
    // Each line is read where it stands in the head, without splitting the head into lines first.
    for (let start = statusEnd + 2, end = 0; start <= head.length; start = end + 2) {
      end = lineEnd(head, start);
      const colon = head.indexOf(':', start);
      if (colon <= start || colon > end) throw new AnswerFormatError(`invalid header line: ${JSON.stringify(head.slice(start, Math.min(end, start + 40)))}`);
      const name = head.slice(start, colon);
      const value = head.slice(colon + 1, end).trim();
      rawHeaders.push(name, value);
      switch (name.toLowerCase()) {
        case 'content-length':
          if (!DIGITS.test(value) || (length !== undefined && length !== value)) throw new AnswerFormatError(`invalid content-length: ${JSON.stringify(value)}`);
          length = value;
          break;
        case 'transfer-encoding':
          encoded = true;
          chunked = value.toLowerCase().trimEnd().endsWith('chunked');
          break;
        case 'connection': {
          const options = value.toLowerCase();
          if (hasToken(options, 'close')) reusable = false;
          else if (hasToken(options, 'keep-alive')) reusable = true;
          break;
        }
        case 'keep-alive': {
          const timeout = KEEP_ALIVE_TIMEOUT.exec(value);
          if (timeout) keepAliveMs = Number(timeout[1]) * 1000;
        }
      }
    }
    this.parts.length = 0;
    this.leftover = false;
    if (statusCode === 204 || statusCode === 304) this.frame('length', 0);
    else if (encoded) this.frame(chunked ? 'size' : 'close', 0);
    else if (length !== undefined) this.frame('length', Number(length));
    else this.frame('close', 0);
    this.answer = { statusCode, rawHeaders, reusable: reusable && this.step !== 'close', keepAliveMs };
  }

  private frame(step: Step, length: number): void {
    this.remaining = length;
    this.step = step === 'length' && length === 0 ? 'done' : step;
  }
}

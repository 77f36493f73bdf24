import { Origin } from './http1-connection.js';

/** A header the caller got wrong; coded as node:http codes it. */
export class InvalidHeaderError extends Error {
  constructor(readonly code: 'ERR_INVALID_HTTP_TOKEN' | 'ERR_INVALID_CHAR', message: string) {
    super(message);
    this.name = 'InvalidHeaderError';
  }
}

export interface Target {
  origin: Origin;
  /** `POST {path} HTTP/1.1` and its line end. */
  requestLine: string;
  /** `host: {host}` and its line end, unless the caller names the host itself. */
  hostLine: string;
  /** `user:password@` of the URL, sent as Basic authorization unless the caller sends its own. */
  basic?: string;
  /** The head up to the body's length, checked and written once per headers object. */
  heads: WeakMap<Record<string, string>, string>;
}

// A process calls the same few endpoints over and over: each URL is parsed once, and each origin keeps its
// idle connections. The caps only bound a process that somehow calls many.
const targets = new Map<string, Target>();
const origins = new Map<string, Origin>();
const MAX_TARGETS = 256;

function originOf(url: URL): Origin {
  let origin = origins.get(url.origin);
  if (origin === undefined) {
    if (origins.size >= MAX_TARGETS) origins.clear();
    origin = new Origin(url);
    origins.set(url.origin, origin);
  }
  return origin;
}

/** The parsed form of `url`, kept for the next call. */
export function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    if (targets.size >= MAX_TARGETS) targets.clear();
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${parsed.protocol}`);
    const credentials = parsed.username || parsed.password
      ? Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')
      : undefined;
    target = {
      origin: originOf(parsed),
      requestLine: `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\n`,
      hostLine: `host: ${parsed.host}\r\n`,
      ...(credentials ? { basic: `Basic ${credentials}` } : {}),
      heads: new WeakMap(),
    };
    targets.set(url, target);
  }
  return target;
}

/**
 * Header names in lower case, a later one replacing an earlier one that differs only in case (an entry's
 * `Authorization` replaces the key's `authorization`), as node:http set them.
 */
function lowerCased(headers: Record<string, string>): Record<string, string> {
  const sent: Record<string, string> = {};
  for (const name in headers) sent[name.toLowerCase()] = headers[name]!;
  return sent;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Headers that frame the request, which this transport writes itself. */
const OWN_HEADERS = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);

function headerLine(name: string, value: string): string {
  if (!TOKEN.test(name) || OWN_HEADERS.has(name)) throw new InvalidHeaderError('ERR_INVALID_HTTP_TOKEN', `Header name must be a valid HTTP token ["${name}"]`);
  if (INVALID_VALUE.test(value)) throw new InvalidHeaderError('ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`);
  return `${name}: ${value}\r\n`;
}

/** The head of a POST to `target` with `headers`, up to the value of its content-length. */
function headUpToLength(target: Target, headers: Record<string, string>): string {
  const sent = lowerCased(headers);
  if (target.basic !== undefined) sent.authorization ??= target.basic;
  let head = sent.host === undefined ? target.requestLine + target.hostLine : target.requestLine;
  for (const name in sent) head += headerLine(name, sent[name]!);
  return `${head}connection: keep-alive\r\ncontent-length: `;
}

/**
 * The head of a POST to `target` with `headers` and a body of `length` bytes. A client sends the same headers
 * object on every call, so the rest of the head is checked and written once for it: a headers object must not
 * change once it has been sent (every caller here makes a new one instead).
 */
export function requestHead(target: Target, headers: Record<string, string>, length: number): string {
  let head = target.heads.get(headers);
  if (head === undefined) {
    head = headUpToLength(target, headers);
    target.heads.set(headers, head);
  }
  return `${head}${length}\r\n\r\n`;
}


import { createRequire } from 'node:module';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { AnswerFormatError, AnswerParser, type ParsedAnswer } from './http1-answer.js';

type Tls = typeof import('node:tls');
let tls: Tls | undefined;
/**
 * node:tls (and the TLS socket and secure-context modules it loads) comes with the first https origin: a gateway
 * whose Bot API and models are reached over plain http (a local Bot API server, a local model) never loads it.
 */
const tlsModule = (): Tls => (tls ??= createRequire(import.meta.url)('node:tls') as Tls);

/** The request a connection carries: told its answer, or why there is none. */
export interface Exchange {
  answered(answer: ParsedAnswer): void;
  failed(error: Error): void;
}

/** The request outlasted its time limit, counted from its start to its answer's last byte. */
export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number) {
    super(`Timeout awaiting 'request' for ${timeoutMs}ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** The server closed the connection before the answer was whole; coded as Node codes a reset. */
export class ConnectionClosedError extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('other side closed');
    this.name = 'ConnectionClosedError';
  }
}

// As undici keeps them: idle for 4 s unless the server says how long it keeps them, less a 2 s margin so a
// request never goes out on a connection the server is closing.
const DEFAULT_IDLE_MS = 4_000;
const SERVER_MARGIN_MS = 2_000;
const MAX_IDLE_MS = 600_000;

function timedOut(connection: Connection): void {
  connection.timedOut();
}

function idleMs(answer: ParsedAnswer): number {
  return answer.keepAliveMs === undefined ? DEFAULT_IDLE_MS : Math.min(answer.keepAliveMs - SERVER_MARGIN_MS, MAX_IDLE_MS);
}

// A plain connection's bytes are read into this one buffer rather than through its socket's stream (a new
// buffer, a `Readable` push and a `data` event per read): each read is parsed, and what the parser keeps copied,
// before the next, so every connection can share it.
const readBuffer = Buffer.allocUnsafeSlow(64 * 1024);

/** One server (scheme, host, port) and its idle keep-alive connections, most recently used last. */
export class Origin {
  readonly idle: Connection[] = [];
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: number;

  constructor(url: URL) {
    this.secure = url.protocol === 'https:';
    // `URL` keeps an IPv6 address in brackets; sockets take it bare.
    this.hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.port = url.port === '' ? (this.secure ? 443 : 80) : Number(url.port);
  }

  /** An idle connection still within its keep-alive time, or a new one. */
  acquire(): Connection {
    const now = Date.now();
    for (let connection = this.idle.pop(); connection !== undefined; connection = this.idle.pop()) {
      if (connection.idleUntil > now) return connection;
      connection.destroy();
    }
    return new Connection(this);
  }

  release(connection: Connection, now: number): void {
    // The oldest idle connections are the first to outlive their time; they are closed as others come back.
    while (this.idle.length > 0 && this.idle[0]!.idleUntil <= now) this.idle.shift()!.destroy();
    this.idle.push(connection);
  }

  forget(connection: Connection): void {
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
  }
}

/**
 * A keep-alive HTTP/1.1 connection carrying one request at a time. Its socket keeps the process alive only
 * while a request is out.
 */
export class Connection {
  idleUntil = 0;
  private readonly socket: Socket;
  private readonly parser = new AnswerParser();
  private exchange: Exchange | undefined;
  private closed = false;
  /**
   * The time limit of the request out, kept for the next one with the same limit: `refresh` starts it again
   * without a new timer. Between requests it stays set but unreferenced, and firing then does nothing.
   */
  private timer: NodeJS.Timeout | undefined;
  private timerMs = 0;

  constructor(private readonly origin: Origin) {
    const { hostname: host, port } = origin;
    if (origin.secure) {
      this.socket = tlsModule().connect({ host, port, ALPNProtocols: ['http/1.1'], ...(isIP(host) === 0 ? { servername: host } : {}) });
      this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    } else {
      this.socket = netConnect({ host, port, onread: { buffer: readBuffer, callback: (length) => this.readInto(length) } });
    }
    this.socket.setNoDelay(true);
    this.socket.on('end', () => this.ended());
    this.socket.on('error', (error: Error) => this.lost(error));
    this.socket.on('close', () => this.lost(new ConnectionClosedError()));
  }

  /**
   * Writes the request's head and body in one go (one `writev`); the answer goes to `exchange`, or
   * `RequestTimeoutError` when it is not whole within `timeoutMs`.
   */
  send(head: string, body: string | Buffer, exchange: Exchange, timeoutMs: number): void {
    this.start(exchange, timeoutMs);
    this.socket.cork();
    this.socket.write(head, 'latin1');
    this.socket.write(body);
    this.socket.uncork();
  }

  /** As `send`, for a request already in one buffer: one plain write. */
  sendWhole(request: Buffer, exchange: Exchange, timeoutMs: number): void {
    this.start(exchange, timeoutMs);
    this.socket.write(request);
  }

  private start(exchange: Exchange, timeoutMs: number): void {
    this.exchange = exchange;
    this.parser.reset();
    this.limit(timeoutMs);
    this.socket.ref();
  }

  /** Closes the connection; a request it carried hears nothing more. */
  destroy(): void {
    this.exchange = undefined;
    this.closed = true;
    clearTimeout(this.timer);
    this.socket.destroy();
  }

  private limit(timeoutMs: number): void {
    if (this.timer !== undefined && this.timerMs === timeoutMs) {
      this.timer.refresh().ref();
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(timedOut, timeoutMs, this);
    this.timerMs = timeoutMs;
  }

  /** The request out, if any, took too long: it fails and the connection closes. */
  timedOut(): void {
    const exchange = this.exchange;
    if (exchange === undefined) return;
    this.destroy();
    exchange.failed(new RequestTimeoutError(this.timerMs));
  }

  /** Bytes read into the shared buffer; the socket reads on (`false` would pause it). */
  private readInto(length: number): boolean {
    this.read(readBuffer.subarray(0, length));
    return true;
  }

  private read(chunk: Buffer): void {
    const exchange = this.exchange;
    // Bytes while no request is out are not an answer to anything: the connection can no longer be trusted.
    if (exchange === undefined) return this.destroy();
    let answer: ParsedAnswer | undefined;
    try {
      answer = this.parser.push(chunk);
    } catch (error) {
      this.destroy();
      exchange.failed(error instanceof Error ? error : new AnswerFormatError(String(error)));
      return;
    }
    if (answer !== undefined) this.finish(exchange, answer);
  }

  /**
   * The server finished sending: the end of an answer whose body runs to the end of the connection. No request
   * may go out on it any more, though its close is still to come.
   */
  private ended(): void {
    this.closed = true;
    this.origin.forget(this);
    const exchange = this.exchange;
    const answer = exchange === undefined ? undefined : this.parser.end();
    if (exchange !== undefined && answer !== undefined) this.finish(exchange, answer);
  }

  private finish(exchange: Exchange, answer: ParsedAnswer): void {
    this.exchange = undefined;
    const now = Date.now();
    this.idleUntil = now + idleMs(answer);
    if (!answer.reusable || this.closed || this.idleUntil <= now) this.destroy();
    else {
      this.timer?.unref();
      this.socket.unref();
      this.origin.release(this, now);
    }
    exchange.answered(answer);
  }

  private lost(error: Error): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.origin.forget(this);
    const exchange = this.exchange;
    this.exchange = undefined;
    exchange?.failed(error);
  }
}

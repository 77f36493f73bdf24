import { connect, type Socket } from 'node:net';
import { resolve } from 'node:path';
import type * as z from 'zod/mini';
import { controlOwnerAlive, controlPaths, readControlToken, removeControlFiles } from '../../store/control-files.js';
import { jsonLines } from './json-lines.js';
import {
  CONTROL_PROTOCOL,
  serverMessageSchema,
  type ClientMessage,
  type ServerMessage,
  type Welcome,
  type wireEventSchema,
} from './protocol.js';

/** A gateway that has not welcomed the client by then is taken as not answering. */
const WELCOME_MS = 3000;

export type WireEvent = z.infer<typeof wireEventSchema>;

/** Why a request to the gateway did not get its answer. */
export class ControlClientError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'ControlClientError';
  }
}

type Request = Extract<ClientMessage, { id: string }>;
/** A request as the caller writes it: the client numbers it. */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;
type Pending = {
  resolve(result: unknown): void;
  reject(error: Error): void;
  output?: (stream: 'stdout' | 'stderr', text: string) => void;
};

/**
 * The CLI's end of a running gateway's control socket: requests with an id are answered by `done` (or `failed`);
 * events of the conversations it opened, and notices, arrive as they happen.
 */
export class GatewayClient {
  private next = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly eventListeners = new Set<(event: WireEvent) => void>();
  private readonly noticeListeners = new Set<(text: string, progress: boolean) => void>();
  private lost: ControlClientError | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly wire: { send(message: unknown): boolean },
    readonly welcome: Welcome,
  ) {}

  /**
   * Connects to the gateway of `home` when one runs for the config at `config`; undefined when none does (a socket
   * its dead gateway left is removed then). Throws `ControlClientError` when one runs but refuses this client.
   */
  static async connect(home: string, config: string): Promise<GatewayClient | undefined> {
    const { socket: path } = controlPaths(home);
    const token = readControlToken(home);
    const socket = await opened(path);
    if (socket === 'refused') {
      // Nobody listens. While the token's process lives the gateway is still starting (or stopping): no gateway yet.
      if (!controlOwnerAlive(home)) removeControlFiles(home);
      return undefined;
    }
    if (!socket) return undefined;
    if (!token) {
      socket.destroy();
      const unreadable = `a gateway listens on ${path} but ${controlPaths(home).token} cannot be read`;
      throw new ControlClientError('unauthorized', unreadable);
    }
    const welcome = await handshake(socket, token.token);
    if (resolve(welcome.config) !== resolve(config)) {
      socket.destroy();
      return undefined;
    }
    return welcome.client;
  }

  /**
   * Sends a request and resolves with its `done` result, checked by `schema`. `output` receives a `run`'s output;
   * `signal` ends a `run` early (the gateway aborts it and answers as it ends).
   */
  async request<S extends z.ZodMiniType>(
    message: Unnumbered<Request>,
    schema: S,
    options: { output?: Pending['output']; signal?: AbortSignal } = {},
  ): Promise<z.infer<S>> {
    if (this.lost) throw this.lost;
    const id = `r${++this.next}`;
    const stop = (): void => void this.wire.send({ type: 'stop', id } satisfies ClientMessage);
    options.signal?.addEventListener('abort', stop, { once: true });
    let result: unknown;
    try {
      result = await new Promise<unknown>((resolve, reject) => {
        this.pending.set(id, { resolve, reject, ...(options.output ? { output: options.output } : {}) });
        this.wire.send({ ...message, id });
      });
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
    const parsed = schema.safeParse(result);
    if (!parsed.success) {
      throw new ControlClientError('bad_answer', `the gateway answered ${message.type} with ${JSON.stringify(result)}`);
    }
    return parsed.data as z.infer<S>;
  }

  /** A message that has no answer (`cancel`, `approval`). */
  send(message: Exclude<ClientMessage, Request>): void {
    this.wire.send(message);
  }

  onEvent(listener: (event: WireEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onNotice(listener: (text: string, progress: boolean) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  /** Wires a welcomed socket's later messages to the client. */
  static attach(
    socket: Socket,
    welcome: Welcome,
    early: ServerMessage[],
    send: (message: unknown) => boolean,
  ): GatewayClient {
    const client = new GatewayClient(socket, { send }, welcome);
    for (const message of early) client.receive(message);
    socket.on('close', () => client.closed());
    return client;
  }

  receive(message: ServerMessage): void {
    switch (message.type) {
      case 'event':
        for (const listener of this.eventListeners) listener(message.event);
        return;
      case 'notice':
        for (const listener of this.noticeListeners) listener(message.text, message.progress === true);
        return;
      case 'output':
        this.pending.get(message.id)?.output?.(message.stream, message.text);
        return;
      case 'done':
        this.pending.get(message.id)?.resolve(message.result);
        this.pending.delete(message.id);
        return;
      case 'failed':
        this.pending.get(message.id)?.reject(new ControlClientError(message.code, message.message, message.exit));
        this.pending.delete(message.id);
        return;
      default:
        return;
    }
  }

  private closed(): void {
    const why = 'the gateway closed the connection (it is stopping, or it died)';
    this.lost = new ControlClientError('gateway_gone', why);
    for (const pending of this.pending.values()) pending.reject(this.lost);
    this.pending.clear();
  }
}

/** The connected socket, `refused` (a file nobody listens on), or undefined (no socket file). */
function opened(path: string): Promise<Socket | 'refused' | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOTSOCK' ? 'refused' : undefined);
    });
  });
}

function handshake(socket: Socket, token: string): Promise<{ config: string; client: GatewayClient }> {
  return new Promise((resolve, reject) => {
    let client: GatewayClient | undefined;
    let welcome: Welcome | undefined;
    const early: ServerMessage[] = [];
    const fail = (error: ControlClientError): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const silence = 'the gateway did not answer on its control socket';
    const silent = (): void => fail(new ControlClientError('no_answer', silence));
    const timer = setTimeout(silent, WELCOME_MS);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      const why = 'the gateway closed its control socket before it welcomed this client';
      if (!welcome) fail(new ControlClientError('gateway_gone', why));
    });
    const wire = jsonLines(socket, (value) => serverMessageSchema.safeParse(value), {
      error: (error) => {
        const why = `the gateway's answer is not understood (${error.message})`;
        if (!welcome) fail(new ControlClientError('bad_answer', why));
      },
      message: (message) => {
        if (client) return client.receive(message);
        if (message.type === 'refused') return fail(new ControlClientError(message.code, message.message));
        if (message.type !== 'welcome') return void early.push(message);
        clearTimeout(timer);
        welcome = message;
        client = GatewayClient.attach(socket, message, early, wire.send);
        resolve({ config: message.config, client });
      },
    });
    wire.send({ type: 'hello', token, protocol: CONTROL_PROTOCOL } satisfies ClientMessage);
  });
}

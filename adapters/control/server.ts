import { timingSafeEqual } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { controlOwnerAlive, controlPaths, removeControlFiles, writeControlToken } from '../../store/control-files.js';
import { jsonLines } from './json-lines.js';
import { probeSocket } from './probe.js';
import {
  clientMessageSchema,
  CONTROL_PROTOCOL,
  type ClientMessage,
  type ServerMessage,
  type Welcome,
} from './protocol.js';

/** A client that has not said hello by then is dropped. */
const HELLO_MS = 5000;

/** One authenticated client, as the service sees it. */
export interface ControlConnection {
  send(message: ServerMessage): void;
  /** Aborted when the client has gone (Ctrl-C, a crash, the end of its command). */
  readonly gone: AbortSignal;
}

/** What the gateway serves: every request after the hello, and what the welcome says about it. */
export interface ControlService {
  welcome(): Omit<Welcome, 'type' | 'protocol'>;
  handle(message: Exclude<ClientMessage, { type: 'hello' }>, connection: ControlConnection): void;
}

export class ControlUnavailableError extends Error {
  constructor(
    readonly code: 'socket_in_use' | 'listen_failed',
    message: string,
  ) {
    super(message);
    this.name = 'ControlUnavailableError';
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The gateway's end of the control socket (`AGENT_HOME/gateway.sock`, mode 0600): a client proves it may read this
 * home's files by sending the token of `gateway.token` (0600) first; then each JSON line is a request for the
 * service. A socket a dead gateway left behind is removed at the start; a live one is never taken over.
 */
export class ControlServer {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly home: string,
    private readonly token: string,
  ) {}

  static async listen(home: string, service: ControlService): Promise<ControlServer> {
    const { socket: path } = controlPaths(home);
    const probe = await probeSocket(path);
    if (probe === 'listening' || (probe === 'stale' && controlOwnerAlive(home))) {
      throw new ControlUnavailableError('socket_in_use', `another gateway serves ${path}`);
    }
    if (probe === 'stale') removeControlFiles(home);
    // The token is on disk before anyone can connect, so a client that finds the socket finds its token.
    const { token } = writeControlToken(home);
    const server = createServer();
    const control = new ControlServer(server, home, token);
    server.on('connection', (socket) => control.accept(socket, service));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => {
          server.off('error', reject);
          resolve();
        });
      });
      chmodSync(path, 0o600);
    } catch (error) {
      server.close();
      removeControlFiles(home, token);
      throw new ControlUnavailableError('listen_failed', `cannot listen on ${path}: ${(error as Error).message}`);
    }
    server.on('error', () => undefined);
    return control;
  }

  /** Stops listening, ends every connection and removes the socket and token file. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // What was sent in this turn of the event loop goes out first (`jsonLines` holds it until the turn ends).
    for (const socket of this.sockets) {
      socket.uncork();
      socket.destroy();
    }
    await closed;
    removeControlFiles(this.home, this.token);
  }

  private accept(socket: Socket, service: ControlService): void {
    this.sockets.add(socket);
    const gone = new AbortController();
    let welcomed = false;
    const hello = setTimeout(() => socket.destroy(), HELLO_MS);
    socket.on('close', () => {
      clearTimeout(hello);
      this.sockets.delete(socket);
      gone.abort();
    });
    socket.on('error', () => undefined);
    const connection: ControlConnection = { send: (message) => void wire.send(message), gone: gone.signal };
    const refuse = (code: string, message: string): void => {
      wire.send({ type: 'refused', code, message } satisfies ServerMessage);
      socket.end();
    };
    const wire = jsonLines(socket, (value) => clientMessageSchema.safeParse(value), {
      error: () => undefined,
      message: (message) => {
        if (welcomed) {
          if (message.type !== 'hello') service.handle(message, connection);
          return;
        }
        clearTimeout(hello);
        if (message.type !== 'hello' || !sameToken(message.token, this.token)) {
          return refuse('unauthorized', 'the token does not match gateway.token');
        }
        if (message.protocol !== CONTROL_PROTOCOL) {
          const versions = `the gateway speaks control protocol ${CONTROL_PROTOCOL}, the client ${message.protocol}`;
          return refuse('protocol', `${versions}; use the same tern for both`);
        }
        welcomed = true;
        connection.send({ type: 'welcome', protocol: CONTROL_PROTOCOL, ...service.welcome() });
      },
    });
  }
}

// A loopback Pico Protocol server (as the peer runtime and Tern's launcher serve `/pico/ws`) for Tern's `pico_client`
// channel: it takes a connection whose `Authorization: Bearer` carries its token, pushes `message.create` and
// `media.create` frames in named sessions, answers `ping` frames with `pong` (and WebSocket pings, as `ws` does), and
// records what the client sends: `message.send` replies and `typing.start` / `typing.stop`.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { Outage } from '../contract/bad-days.js';

/** A frame the client sent, as it came. */
export interface ClientSaid {
  type: string;
  id?: string;
  session_id?: string;
  payload?: { content?: string };
  at: number;
}

/** A frame pushed to the client, kept to push again. */
export type Pushed = Record<string, unknown> & { id: string };

export class PicoServerEmulator {
  readonly token = `pico-${randomBytes(8).toString('hex')}`;
  /** Every frame the client sent, in order. */
  readonly frames: ClientSaid[] = [];
  private server!: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly pushed = new Map<string, Pushed>();
  private readonly outages = new Outage();
  private connected = 0;
  private refusedCount = 0;
  private nextFrame = 1;
  private waiting: Array<() => void> = [];

  static async start(): Promise<PicoServerEmulator> {
    const emulator = new PicoServerEmulator();
    emulator.server = createServer((_req, res) => res.writeHead(404).end());
    emulator.server.on('upgrade', (req, socket, head) => {
      if (emulator.outages.refusing) {
        emulator.refusedCount++;
        return socket.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
      }
      if (req.url !== '/pico/ws') return socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      if (req.headers.authorization !== `Bearer ${emulator.token}`)
        return socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      emulator.wss.handleUpgrade(req, socket, head, (ws) => emulator.accept(ws));
    });
    await new Promise<void>((resolve) => emulator.server.listen(0, '127.0.0.1', resolve));
    return emulator;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/pico/ws`;
  }

  /** How many times a client connected with the right token. */
  connections(): number {
    return this.connected;
  }

  /** How many connections were turned away while the server was down. */
  refused(): number {
    return this.refusedCount;
  }

  /** Resolves once a client is connected: a push before would reach no one, as with a real server. */
  async online(): Promise<void> {
    if (this.sockets.size > 0) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Sends a frame to every connected client (once one is) and keeps it to push again; its id is made here. */
  async push(frame: Record<string, unknown>): Promise<Pushed> {
    await this.online();
    const full: Pushed = { timestamp: Date.now(), ...frame, id: `srv-${this.nextFrame++}` };
    this.pushed.set(full.id, full);
    this.broadcast(full);
    return full;
  }

  /** Pushes a frame again, as a server does that replays its backlog after a reconnect. */
  async repush(id: string): Promise<void> {
    const frame = this.pushed.get(id);
    if (!frame) throw new Error(`no frame ${id} was pushed`);
    await this.online();
    this.broadcast(frame);
  }

  /** The `message.send` frames of one session, in order. */
  sentIn(session: string): ClientSaid[] {
    return this.frames.filter((f) => f.type === 'message.send' && f.session_id === session);
  }

  /** The typing frames of one session, in order (`typing.start`, `typing.stop`). */
  typingIn(session: string): string[] {
    return this.frames.filter((f) => f.type.startsWith('typing.') && f.session_id === session).map((f) => f.type);
  }

  /** Drops every connection and refuses new ones for `ms`. */
  outage(ms: number): Promise<void> {
    return this.outages.for(ms, () => this.dropAll());
  }

  /** Drops every connection and refuses new ones until `resume()`. */
  down(): void {
    this.outages.refusing = true;
    this.dropAll();
  }

  resume(): void {
    this.outages.refusing = false;
  }

  /** Stops reading the open connections: no frame is taken and no ping answered, as of a server that hangs. */
  hang(): void {
    for (const socket of this.sockets) socket.pause();
  }

  async close(): Promise<void> {
    this.dropAll();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private dropAll(): void {
    for (const socket of this.sockets) socket.terminate();
    this.sockets.clear();
  }

  private broadcast(frame: Record<string, unknown>): void {
    for (const socket of this.sockets) socket.send(JSON.stringify(frame));
  }

  private accept(socket: WebSocket): void {
    this.connected++;
    this.sockets.add(socket);
    for (const resolve of this.waiting.splice(0)) resolve();
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('message', (raw) => {
      // A frame from a socket the server already dropped never reached it.
      if (!this.sockets.has(socket)) return;
      const frame = JSON.parse(raw.toString()) as ClientSaid;
      this.frames.push({ ...frame, at: Date.now() });
      if (frame.type === 'ping')
        socket.send(JSON.stringify({ type: 'pong', id: frame.id, timestamp: Date.now(), payload: {} }));
      else if (!['message.send', 'typing.start', 'typing.stop'].includes(frame.type))
        socket.send(
          JSON.stringify({
            type: 'error',
            timestamp: Date.now(),
            payload: { code: 'unknown_type', message: `unknown message type: ${frame.type}` },
          }),
        );
    });
  }
}

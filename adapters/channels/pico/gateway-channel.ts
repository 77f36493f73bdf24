import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { ChannelHooks } from '../channel.js';
import { PicoEndpoint } from './endpoint.js';
import { PICO_WS_PATH } from './path.js';
import { PicoChannel } from './server-channel.js';
import { admit, tokenProtocol, type TokenGateSettings } from './token-gate.js';

/** The peer runtime's one sender of every Pico client: an `allow_from` listing it admits every session. */
const PEER_SENDER = 'pico-user';
/**
 * A reply longer than this goes out in parts: kept under the longest message a client may send (frames.ts), so the
 * contract's quoted-back paragraph fits both ways.
 */
export const PICO_GATEWAY_MAX_CHARS = 16_000;

export interface PicoGatewayOptions extends TokenGateSettings {
  name: string;
  maxConnections: number;
  pingIntervalMs: number;
  readTimeoutMs: number;
}

/** An HTTP answer on a socket that asked to upgrade, then the end of it. */
function refuse(socket: Duplex, status: number, reason: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
  );
}

/**
 * A `pico` entry of `tern gateway`: a Pico Protocol server on the gateway's HTTP server at `/pico/ws`, for clients
 * holding the entry's token. Each session is a sender of its own (`allow_from` lists sessions, or `pico-user` for all).
 */
export class PicoGatewayChannel extends PicoChannel {
  readonly upgradePath = PICO_WS_PATH;
  private readonly served: PicoEndpoint;
  private readonly lastHeard = new WeakMap<WebSocket, number>();
  private pinger: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly options: PicoGatewayOptions) {
    const served = new PicoEndpoint({
      senderOf: (session) => ({ sender: session, aliases: [session, PEER_SENDER] }),
      handleProtocols: (protocols) => tokenProtocol(protocols, options.token) ?? false,
    });
    super(served, options.name, false, PICO_GATEWAY_MAX_CHARS);
    this.served = served;
    served.sockets.on('connection', (socket: WebSocket) => {
      const heard = () => this.lastHeard.set(socket, Date.now());
      heard();
      socket.on('pong', heard);
      socket.on('message', heard);
    });
  }

  override async start(hooks: ChannelHooks): Promise<void> {
    await super.start(hooks);
    this.running = true;
    // A client that went away without closing (a sleeping laptop) is noticed by its missing pongs.
    this.pinger = setInterval(() => {
      for (const socket of this.served.sockets.clients) {
        if (Date.now() - (this.lastHeard.get(socket) ?? 0) > this.options.readTimeoutMs) socket.terminate();
        else socket.ping();
      }
    }, this.options.pingIntervalMs);
    this.pinger.unref();
  }

  override async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.pinger);
    await super.stop();
    this.served.close();
  }

  /** The gateway's HTTP server hands over each upgrade to `/pico/ws`: a bad token gets 401 and never a socket. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!this.running) return refuse(socket, 503, 'the pico channel is not running');
    const admission = admit(req, this.options);
    if (!admission.ok) return refuse(socket, admission.status, admission.reason);
    if (this.served.sockets.clients.size >= this.options.maxConnections)
      return refuse(socket, 503, `too many connections (max_connections ${this.options.maxConnections})`);
    this.served.accept(req, socket, head);
  }
}

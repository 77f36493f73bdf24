import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { merge, map, type Observable } from 'rxjs';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Envelope } from '../../bus/index.js';
import type { GatewayStatus } from './api/host.js';

/**
 * Each message on `/api/live`: one bus event as the log stores it, or the gateway's status (sent first on
 * connect and at every change, since a stopped gateway has no bus to say so).
 */
export type LiveFrame = { type: 'event'; event: Envelope } | { type: 'gateway'; status: GatewayStatus };

/** A socket that reads this slowly is dropped rather than buffering the whole bus for it. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** `/api/live`: the gateway's status and every bus event, as JSON, to each signed-in browser. */
export class LiveFeed {
  readonly sockets = new WebSocketServer({ noServer: true });

  constructor(events$: Observable<Envelope>, status$: Observable<GatewayStatus>) {
    const frames$: Observable<LiveFrame> = merge(
      status$.pipe(map((status): LiveFrame => ({ type: 'gateway', status }))),
      events$.pipe(map((event): LiveFrame => ({ type: 'event', event }))),
    );
    this.sockets.on('connection', (socket: WebSocket) => {
      const subscription = frames$.subscribe((frame) => send(socket, frame));
      socket.on('close', () => subscription.unsubscribe());
      socket.on('error', () => subscription.unsubscribe());
    });
  }

  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.sockets.handleUpgrade(req, socket, head, (ws) => this.sockets.emit('connection', ws, req));
  }

  close(): void {
    for (const client of this.sockets.clients) client.terminate();
    this.sockets.close();
  }
}

function send(socket: WebSocket, frame: LiveFrame): void {
  if (socket.readyState !== socket.OPEN) return;
  if (socket.bufferedAmount > MAX_BUFFERED) return void socket.terminate();
  socket.send(JSON.stringify(frame));
}

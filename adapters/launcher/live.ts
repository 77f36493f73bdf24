import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Observable } from 'rxjs';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Envelope } from '../../bus/index.js';

/** Each message on `/api/live`: one bus event as the log stores it. */
export type LiveFrame = { type: 'event'; event: Envelope };

/** A socket that reads this slowly is dropped rather than buffering the whole bus for it. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** `/api/live`: every bus event, as JSON, to each signed-in browser. */
export class LiveFeed {
  readonly sockets = new WebSocketServer({ noServer: true });

  constructor(events$: Observable<Envelope>) {
    this.sockets.on('connection', (socket: WebSocket) => {
      const subscription = events$.subscribe((event) => send(socket, { type: 'event', event }));
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

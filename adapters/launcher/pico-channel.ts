import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ChatSink, DashboardHost } from './api/host.js';
import { parseClientFrame, type ClientFrame, type ServerFrame } from './pico-frames.js';

function send(socket: WebSocket, frame: ServerFrame): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

function sinkFor(socket: WebSocket, sessionId: string): ChatSink {
  const frame = <T extends 'message.create' | 'message.update'>(type: T, messageId: string, content: string) =>
    send(socket, { type, session_id: sessionId, timestamp: Date.now(), payload: { message_id: messageId, content } });
  return {
    create: (messageId, content) => frame('message.create', messageId, content),
    update: (messageId, content) => frame('message.update', messageId, content),
    typing: (on) => send(socket, { type: on ? 'typing.start' : 'typing.stop', session_id: sessionId, timestamp: Date.now(), payload: {} }),
  };
}

/**
 * `/pico/ws`: the web-UI chat channel. Each socket has a session id (the frame's `session_id`, else one made
 * for the connection); its messages run one at a time, in order, through the host's gateway.
 */
export class PicoChannel {
  readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });

  constructor(private readonly host: DashboardHost) {
    this.sockets.on('connection', (socket: WebSocket) => this.serve(socket));
  }

  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.sockets.handleUpgrade(req, socket, head, (ws) => this.sockets.emit('connection', ws, req));
  }

  close(): void {
    for (const client of this.sockets.clients) client.terminate();
    this.sockets.close();
  }

  private serve(socket: WebSocket): void {
    const fallback = randomUUID().replaceAll('-', '');
    let queue = Promise.resolve();
    socket.on('message', (data) => {
      const parsed = parseClientFrame(String(data));
      if (!parsed.ok) return send(socket, { type: 'error', timestamp: Date.now(), payload: { code: 'bad_frame', message: parsed.message } });
      const frame = parsed.frame;
      if (frame.type === 'ping') return send(socket, { type: 'pong', ...(frame.id ? { id: frame.id } : {}), timestamp: Date.now(), payload: {} });
      queue = queue.then(() => this.chat(socket, frame, frame.session_id ?? fallback));
    });
  }

  private async chat(socket: WebSocket, frame: Extract<ClientFrame, { type: 'message.send' }>, sessionId: string): Promise<void> {
    const sink = sinkFor(socket, sessionId);
    sink.typing(true);
    try {
      const outcome = await this.host.chat(`direct:${sessionId}`, frame.payload.content, sink);
      if (outcome.kind === 'failed') {
        send(socket, { type: 'error', ...(frame.id ? { id: frame.id } : {}), session_id: sessionId, timestamp: Date.now(), payload: { code: outcome.code, message: outcome.message } });
      }
    } catch (error) {
      send(socket, { type: 'error', session_id: sessionId, timestamp: Date.now(), payload: { code: 'internal', message: (error as Error).message } });
    } finally {
      sink.typing(false);
    }
  }
}

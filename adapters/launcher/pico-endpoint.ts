import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ChannelError, type ChannelHooks } from '../channels/channel.js';
import { parseClientFrame, type ServerFrame } from '../channels/pico/frames.js';

/** Who the dashboard user is to `allow_from` and dispatch rules. */
const WEB_SENDER = 'web';

/** A web chat session is the direct chat `direct:<session>`; replies address the session. */
export const chatOf = (session: string): string => `direct:${session}`;

function send(socket: WebSocket, frame: ServerFrame): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

/**
 * `/pico/ws`, the launcher's side of the web-UI channel: it outlives gateway restarts. Each socket speaks
 * for the chat sessions it names (the frame's `session_id`, else one made for the connection); messages go
 * to the gateway's `pico` channel while one is attached, and replies come back to every socket of the session.
 */
export class PicoEndpoint {
  readonly sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  private readonly bySession = new Map<string, Set<WebSocket>>();
  private inbound: Pick<ChannelHooks, 'onMessage'> | undefined;
  private attachedName = '';

  constructor() {
    this.sockets.on('connection', (socket: WebSocket) => this.serve(socket));
  }

  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.sockets.handleUpgrade(req, socket, head, (ws) => this.sockets.emit('connection', ws, req));
  }

  /**
   * The running gateway's channel takes the messages; detaching (gateway stopped) answers them with an error.
   * One page serves one chat, so a second `pico` entry fails with the name of the one already attached.
   */
  attach(name: string, inbound: Pick<ChannelHooks, 'onMessage'>): () => void {
    if (this.inbound)
      throw new ChannelError(
        'bad_settings',
        `channel_list.${name}: the web-UI chat is already served by channel_list.${this.attachedName} ` +
          '(one pico entry may be enabled)',
      );
    this.inbound = inbound;
    this.attachedName = name;
    return () => {
      if (this.inbound === inbound) this.inbound = undefined;
    };
  }

  deliver(session: string, frame: ServerFrame): void {
    for (const socket of this.bySession.get(session) ?? []) send(socket, frame);
  }

  close(): void {
    for (const client of this.sockets.clients) client.terminate();
    this.sockets.close();
    this.bySession.clear();
  }

  private join(session: string, socket: WebSocket): void {
    const sockets = this.bySession.get(session) ?? new Set();
    sockets.add(socket);
    this.bySession.set(session, sockets);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0 && this.bySession.get(session) === sockets) this.bySession.delete(session);
    });
  }

  private serve(socket: WebSocket): void {
    const fallback = randomUUID().replaceAll('-', '');
    const joined = new Set<string>();
    socket.on('message', (data) => {
      const parsed = parseClientFrame(String(data));
      if (!parsed.ok)
        return send(socket, {
          type: 'error',
          timestamp: Date.now(),
          payload: { code: 'bad_frame', message: parsed.message },
        });
      const frame = parsed.frame;
      // A ping naming a session joins it: a page opened again gets the replies of a turn still running.
      if (frame.type === 'ping' && !frame.session_id)
        return send(socket, {
          type: 'pong',
          ...(frame.id ? { id: frame.id } : {}),
          timestamp: Date.now(),
          payload: {},
        });
      const session = frame.session_id ?? fallback;
      if (!joined.has(session)) {
        joined.add(session);
        this.join(session, socket);
      }
      if (frame.type === 'ping')
        return send(socket, {
          type: 'pong',
          ...(frame.id ? { id: frame.id } : {}),
          session_id: session,
          timestamp: Date.now(),
          payload: {},
        });
      if (!this.inbound) {
        return send(socket, {
          type: 'error',
          ...(frame.id ? { id: frame.id } : {}),
          session_id: session,
          timestamp: Date.now(),
          payload: { code: 'gateway_stopped', message: 'the gateway is stopped; start it on the Gateway page' },
        });
      }
      // A frame id makes a resent message a duplicate the dispatcher drops: each message is answered once.
      this.inbound.onMessage({
        messageId: `${session}:${frame.id ?? randomUUID()}`,
        chat: chatOf(session),
        replyTo: session,
        sender: WEB_SENDER,
        senderAliases: [WEB_SENDER],
        text: frame.payload.content,
        mentioned: true,
      });
    });
  }
}

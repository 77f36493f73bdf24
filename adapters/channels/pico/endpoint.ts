import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ChannelError, type ChannelHooks } from '../channel.js';
import { parseClientFrame, sessionIdSchema, type ServerFrame } from './frames.js';

/** Who a session's messages come from, to `allow_from` and dispatch rules. */
export interface PicoSender {
  sender: string;
  aliases: string[];
}

/** The launcher's dashboard has one user, the signed-in owner. */
const WEB_SENDER: PicoSender = { sender: 'web', aliases: ['web'] };

export interface PicoEndpointOptions {
  senderOf?: (session: string) => PicoSender;
  /** Picks the subprotocol the server answers with, as `ws` asks it (a client's `token.<value>`). */
  handleProtocols?: (protocols: Set<string>, req: IncomingMessage) => string | false;
}

/** A web chat session is the direct chat `direct:<session>`; replies address the session. */
export const chatOf = (session: string): string => `direct:${session}`;

function send(socket: WebSocket, frame: ServerFrame): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
}

/**
 * `/pico/ws`, the server side of the Pico Protocol: the launcher's for its web-UI channel (it outlives gateway
 * restarts), or a `pico` channel's of `tern gateway`. Each socket speaks for the chat sessions it names (the frame's
 * `session_id`, else the connection's: its `?session_id=` or one made for it); messages go to the `pico` channel
 * while one is attached, and replies come back to every socket of the session.
 */
export class PicoEndpoint {
  readonly sockets: WebSocketServer;
  private readonly bySession = new Map<string, Set<WebSocket>>();
  private readonly senderOf: (session: string) => PicoSender;
  private inbound: Pick<ChannelHooks, 'onMessage'> | undefined;
  private attachedName = '';

  constructor(options: PicoEndpointOptions = {}) {
    this.senderOf = options.senderOf ?? (() => WEB_SENDER);
    this.sockets = new WebSocketServer({
      noServer: true,
      maxPayload: 256 * 1024,
      ...(options.handleProtocols ? { handleProtocols: options.handleProtocols } : {}),
    });
    this.sockets.on('connection', (socket: WebSocket, req: IncomingMessage) => this.serve(socket, req));
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

  private serve(socket: WebSocket, req: IncomingMessage): void {
    const asked = new URL(req.url ?? '/', 'http://localhost').searchParams.get('session_id') ?? '';
    const fallback = sessionIdSchema.safeParse(asked).success ? asked : randomUUID().replaceAll('-', '');
    const joined = new Set<string>();
    // A session the client named on connecting gets its replies from the start, before it sends anything.
    if (asked === fallback) {
      joined.add(fallback);
      this.join(fallback, socket);
    }
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
      const { sender, aliases } = this.senderOf(session);
      this.inbound.onMessage({
        messageId: `${session}:${frame.id ?? randomUUID()}`,
        chat: chatOf(session),
        replyTo: session,
        sender,
        senderAliases: aliases,
        text: frame.payload.content,
        mentioned: true,
      });
    });
  }
}

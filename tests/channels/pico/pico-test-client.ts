// A Pico Protocol client, as the peer runtime's chat page or a script connects to a `pico` channel of `tern gateway`:
// one WebSocket to `/pico/ws` per session (`?session_id=`), the token as `Authorization: Bearer` unless told how
// else, `message.send` frames out; what the server sends is kept: messages as they read after their updates, typing.
import WebSocket from 'ws';
import type { SentMessage } from '../contract/emulator.js';

interface ServerFrameSeen {
  type: string;
  session_id?: string;
  payload?: { message_id?: string; content?: string; media?: Array<{ name: string; kind: string }> };
}

/** How the client shows the token: the header (default), the subprotocol browsers use, or the query. */
export type TokenAs = 'bearer' | 'protocol' | 'query';

/** The upgrade was answered with a status, not a socket. */
export class RefusedError extends Error {
  readonly code = 'refused';
  constructor(readonly status: number) {
    super(`the server answered the upgrade with HTTP ${status}`);
  }
}

export class PicoTestClient {
  readonly messages: SentMessage[] = [];
  typingStarts = 0;
  private socket: WebSocket | undefined;
  private frameIds = 0;
  private readonly said = new Map<string, string>();

  constructor(
    private readonly url: string,
    readonly session: string,
    private readonly token: string,
    private readonly tokenAs: TokenAs = 'bearer',
  ) {}

  /** Opens the socket (again, once the gateway closed it); rejects with `RefusedError` on a status answer. */
  async open(): Promise<WebSocket> {
    if (this.socket?.readyState === WebSocket.OPEN) return this.socket;
    const query = new URLSearchParams({ session_id: this.session });
    if (this.tokenAs === 'query') query.set('token', this.token);
    const socket = new WebSocket(
      `${this.url}?${query}`,
      this.tokenAs === 'protocol' ? [`token.${this.token}`] : [],
      this.tokenAs === 'bearer' ? { headers: { authorization: `Bearer ${this.token}` } } : {},
    );
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => {
        res.resume();
        reject(new RefusedError(res.statusCode ?? 0));
      });
      socket.once('error', reject);
    });
    socket.on('message', (data) => this.take(JSON.parse(String(data)) as ServerFrameSeen));
    this.socket = socket;
    return socket;
  }

  /** The subprotocol the server answered with. */
  get protocol(): string {
    return this.socket?.protocol ?? '';
  }

  /** Sends `message.send`; its frame id is what a resend repeats. */
  async say(content: string): Promise<{ id: string }> {
    const id = `f${++this.frameIds}`;
    this.said.set(id, content);
    await this.send(id, content);
    return { id };
  }

  /** The frame `id` once more, as a client does that did not see its answer. */
  async resend(id: string): Promise<void> {
    await this.send(id, this.said.get(id) ?? '');
  }

  private async send(id: string, content: string): Promise<void> {
    const socket = await this.open();
    socket.send(JSON.stringify({ type: 'message.send', id, session_id: this.session, payload: { content } }));
  }

  close(): void {
    this.socket?.terminate();
  }

  private take(frame: ServerFrameSeen): void {
    const payload = frame.payload ?? {};
    if (frame.type === 'typing.start') this.typingStarts++;
    if (frame.type === 'message.create')
      this.messages.push({ id: payload.message_id ?? '', text: payload.content ?? '', edits: [], at: Date.now() });
    if (frame.type === 'message.update') {
      const message = this.messages.find((m) => m.id === payload.message_id);
      if (message) {
        message.edits.push(message.text);
        message.text = payload.content ?? '';
      }
    }
  }
}

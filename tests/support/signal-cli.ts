// A loopback signal-cli daemon (`signal-cli -a ACCOUNT daemon --tcp`): JSON-RPC 2.0, one JSON object per line, both
// ways. Users' messages arrive as `receive` notifications carrying signal-cli's envelope; the bot calls `send`
// (text, data-URI attachments), `sendTyping`, `getAttachment` and `listAccounts`. Files users send are kept by id.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface BotMessage {
  /** The message's timestamp, Signal's id of it. */
  timestamp: number;
  recipient: string;
  text: string;
  attachments: Array<{ mime: string; name: string; bytes: Buffer }>;
  at: number;
}

interface Request {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
}

export class SignalCliDaemon {
  readonly account = '+15550001000';
  /** Every message the bot sent, in order. */
  readonly sent: BotMessage[] = [];
  /** Typing notifications per recipient. */
  readonly typing = new Map<string, number>();
  private server!: Server;
  private readonly sockets = new Set<Socket>();
  private readonly files = new Map<string, Buffer>();
  private readonly envelopes = new Map<number, Record<string, unknown>>();
  private refusing = false;
  private connected = 0;
  private clock = Date.now();
  private nextUser = 1;
  private waiting: Array<() => void> = [];
  private hold: { answers: Array<() => void>; on: boolean } | undefined;

  static async start(): Promise<SignalCliDaemon> {
    const daemon = new SignalCliDaemon();
    daemon.server = createServer((socket) => daemon.accept(socket));
    await new Promise<void>((resolve) => daemon.server.listen(0, '127.0.0.1', resolve));
    return daemon;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  connections(): number {
    return this.connected;
  }

  /** Resolves once a client is connected: signal-cli sends notifications only to connected clients. */
  async online(): Promise<void> {
    if (this.sockets.size > 0) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** A new Signal user (a phone number). */
  user(name: string): { number: string; uuid: string; name: string } {
    const n = this.nextUser++;
    return { number: `+1555020${String(n).padStart(4, '0')}`, uuid: randomBytes(16).toString('hex'), name };
  }

  /** The user sends a message (text, attachments); returns its timestamp. */
  say(
    from: { number: string; uuid: string; name: string },
    text: string,
    files: Array<{ mime: string; bytes: Buffer }> = [],
  ): number {
    const timestamp = ++this.clock;
    const attachments = files.map((file, i) => {
      const id = `${randomBytes(6).toString('hex')}.${file.mime.split('/')[1]}`;
      this.files.set(id, file.bytes);
      return { contentType: file.mime, filename: `file${i}.${file.mime.split('/')[1]}`, id, size: file.bytes.length };
    });
    const envelope = {
      source: from.number,
      sourceNumber: from.number,
      sourceUuid: from.uuid,
      sourceName: from.name,
      sourceDevice: 1,
      timestamp,
      dataMessage: {
        timestamp,
        message: text === '' ? null : text,
        expiresInSeconds: 0,
        viewOnce: false,
        ...(attachments.length > 0 ? { attachments } : {}),
      },
    };
    this.envelopes.set(timestamp, envelope);
    this.notify(envelope);
    return timestamp;
  }

  /** Hands an envelope out again, as after a lost receipt. */
  redeliver(timestamp: number): void {
    const envelope = this.envelopes.get(timestamp);
    if (envelope) this.notify(envelope);
  }

  to(number: string): BotMessage[] {
    return this.sent.filter((m) => m.recipient === number);
  }

  async outage(ms: number): Promise<void> {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.refusing = false;
  }

  /** Sends are carried out but their answers kept back until `release()`. */
  holdSendAnswers(): { held(): number; release(): void } {
    const hold = { answers: [] as Array<() => void>, on: true };
    this.hold = hold;
    return {
      held: () => hold.answers.length,
      release: () => {
        hold.on = false;
        for (const answer of hold.answers.splice(0)) answer();
      },
    };
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private notify(envelope: Record<string, unknown>): void {
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'receive', params: { envelope, account: this.account } });
    for (const socket of this.sockets) socket.write(`${line}\n`);
  }

  private accept(socket: Socket): void {
    if (this.refusing) return void socket.destroy();
    this.connected += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    for (const resolve of this.waiting.splice(0)) resolve();
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line.trim() !== '') this.take(socket, line);
      }
    });
  }

  private answer(socket: Socket, id: Request['id'], body: Record<string, unknown>): void {
    if (!socket.destroyed) socket.write(`${JSON.stringify({ jsonrpc: '2.0', ...body, id })}\n`);
  }

  private take(socket: Socket, line: string): void {
    let request: Request;
    try {
      request = JSON.parse(line) as Request;
    } catch {
      return this.answer(socket, null as never, { error: { code: -32700, message: 'Parse error' } });
    }
    const params = request.params ?? {};
    // A group is named by its id; the emulator records its messages as sent to `group:<id>`.
    const recipient = (
      params.groupId !== undefined
        ? `group:${String(params.groupId)}`
        : Array.isArray(params.recipient)
          ? params.recipient[0]
          : params.recipient
    ) as string | undefined;
    switch (request.method) {
      case 'listAccounts':
        return this.answer(socket, request.id, { result: [{ number: this.account }] });
      case 'sendTyping':
        if (recipient && params.stop !== true) this.typing.set(recipient, (this.typing.get(recipient) ?? 0) + 1);
        return this.answer(socket, request.id, { result: {} });
      case 'getAttachment': {
        const file = this.files.get(String(params.id));
        if (!file) return this.answer(socket, request.id, { error: { code: -1, message: 'Attachment not found' } });
        return this.answer(socket, request.id, { result: { data: file.toString('base64') } });
      }
      case 'send':
        return this.send(socket, request, recipient);
      default:
        return this.answer(socket, request.id, { error: { code: -32601, message: 'Method not implemented' } });
    }
  }

  private send(socket: Socket, request: Request, recipient: string | undefined): void {
    const params = request.params ?? {};
    if (params.account !== undefined && params.account !== this.account)
      return this.answer(socket, request.id, { error: { code: -1, message: 'Specified account does not exist' } });
    if (!recipient) return this.answer(socket, request.id, { error: { code: -32602, message: 'No recipients given' } });
    const attachments = ((params.attachments as string[] | undefined) ?? []).map((uri) => {
      const match = /^data:([^;]+);filename=([^;]+);base64,(.*)$/.exec(uri);
      if (!match) throw new Error(`not a data URI: ${uri.slice(0, 40)}`);
      return { mime: match[1]!, name: decodeURIComponent(match[2]!), bytes: Buffer.from(match[3]!, 'base64') };
    });
    const timestamp = ++this.clock;
    this.sent.push({ timestamp, recipient, text: String(params.message ?? ''), attachments, at: Date.now() });
    const answer = () =>
      this.answer(socket, request.id, {
        result: { timestamp, results: [{ recipientAddress: { number: recipient }, type: 'SUCCESS' }] },
      });
    if (this.hold?.on) this.hold.answers.push(answer);
    else answer();
  }
}

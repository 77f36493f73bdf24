// A loopback IRC server over TCP, as an ircd speaks to one bot: CAP negotiation (IRCv3 `message-tags`,
// `echo-message`, `draft/multiline`, `sasl`), PASS, NICK/USER registration, SASL PLAIN, JOIN, PING, PRIVMSG (alone
// or in a `draft/multiline` batch) and TAGMSG. Users are simulated on the server's side: what they say reaches the
// bot as the server relays it. A line longer than 512 bytes as relayed (RFC 1459 limit) is refused with 417.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const HOST = 'irc.test';
/** The host the server shows for the bot, at its longest (63 bytes), so relayed lines are measured at their worst. */
const BOT_HOST = 'h'.repeat(63);
const CAPS = ['message-tags', 'echo-message', 'server-time', 'sasl', 'draft/multiline=max-bytes=4096,max-lines=100'];

export interface BotMessage {
  /** The server's `msgid` for it. */
  id: string;
  target: string;
  /** Lines joined with a line break, `draft/multiline-concat` lines joined without. */
  text: string;
  /** How many PRIVMSG lines carried it. */
  lines: number;
  at: number;
}

interface Session {
  socket: Socket;
  nick: string;
  user: string;
  caps: Set<string>;
  negotiating: boolean;
  registered: boolean;
  password?: string;
  batch?: { ref: string; target: string; lines: Array<{ text: string; concat: boolean }> };
}

export class IrcServer {
  readonly password = `irc-${randomBytes(8).toString('hex')}`;
  readonly saslPassword = `sasl-${randomBytes(8).toString('hex')}`;
  readonly saslUser = 'ternbot';
  /** Every message the bot sent, in order. */
  readonly sent: BotMessage[] = [];
  /** TAGMSG `+typing=active` per target. */
  readonly typing = new Map<string, number>();
  /** Lines the bot sent that were too long to relay (each answered 417). */
  readonly tooLong: string[] = [];
  /** Channels the bot joined. */
  readonly joined = new Set<string>();
  /** What NickServ was told. */
  readonly nickserv: string[] = [];
  /** Whether the server asks for PASS (else SASL or nothing). */
  requirePassword = true;
  private server!: Server;
  private caps = CAPS;
  private readonly sessions = new Set<Session>();
  private refusing = false;
  private connected = 0;
  private nextId = 1;
  private waiting: Array<() => void> = [];
  private hold: { echoes: Array<() => void>; on: boolean } | undefined;

  /** `without`: capabilities this server does not offer (an older ircd). */
  static async start(options: { without?: string[] } = {}): Promise<IrcServer> {
    const irc = new IrcServer();
    irc.caps = CAPS.filter((c) => !options.without?.includes(c.split('=')[0]!));
    irc.server = createServer((socket) => irc.accept(socket));
    await new Promise<void>((resolve) => irc.server.listen(0, '127.0.0.1', resolve));
    return irc;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  connections(): number {
    return this.connected;
  }

  /** Resolves once a bot is registered: what users say before would reach no one. */
  async online(): Promise<void> {
    if ([...this.sessions].some((s) => s.registered)) return;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** The bot's current nick. */
  botNick(): string {
    return [...this.sessions].find((s) => s.registered)?.nick ?? '';
  }

  /** `nick` says `text` to `target` (the bot's nick or a channel); returns the server's msgid. */
  say(nick: string, target: string, text: string): string {
    const id = `m${this.nextId++}`;
    for (const session of this.sessions) {
      if (!session.registered) continue;
      const tags = session.caps.has('message-tags') ? `@msgid=${id};time=${new Date().toISOString()} ` : '';
      this.write(
        session,
        `${tags}:${nick}!${nick}@users.test PRIVMSG ${target === '$bot' ? session.nick : target} :${text}`,
      );
    }
    return id;
  }

  /** The bot's messages to `target`. */
  to(target: string): BotMessage[] {
    return this.sent.filter((m) => m.target.toLowerCase() === target.toLowerCase());
  }

  /** Drops the bot's connection and refuses new ones for `ms`. */
  async outage(ms: number): Promise<void> {
    this.refusing = true;
    for (const session of this.sessions) session.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.refusing = false;
  }

  /** Messages are taken (and shown to users) but their echoes kept back until `release()`. */
  holdEchoes(): { held(): number; release(): void } {
    const hold = { echoes: [] as Array<() => void>, on: true };
    this.hold = hold;
    return {
      held: () => hold.echoes.length,
      release: () => {
        hold.on = false;
        for (const echo of hold.echoes.splice(0)) echo();
      },
    };
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    if (this.refusing) return void socket.destroy();
    this.connected += 1;
    const session: Session = { socket, nick: '', user: '', caps: new Set(), negotiating: false, registered: false };
    this.sessions.add(session);
    socket.on('close', () => this.sessions.delete(session));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        this.take(session, line);
      }
    });
  }

  private write(session: Session, line: string): void {
    if (!session.socket.destroyed) session.socket.write(`${line}\r\n`);
  }

  private numeric(session: Session, code: string, ...rest: string[]): void {
    this.write(session, `:${HOST} ${code} ${session.nick || '*'} ${rest.join(' ')}`);
  }

  private take(session: Session, raw: string): void {
    const tags = new Map<string, string>();
    let line = raw;
    if (line.startsWith('@')) {
      const space = line.indexOf(' ');
      for (const tag of line.slice(1, space).split(';')) {
        const [key = '', value = ''] = tag.split('=');
        tags.set(key, value);
      }
      line = line.slice(space + 1);
    }
    const trailing = line.indexOf(' :');
    const head = (trailing >= 0 ? line.slice(0, trailing) : line).split(' ').filter(Boolean);
    const params = trailing >= 0 ? [...head.slice(1), line.slice(trailing + 2)] : head.slice(1);
    const command = (head[0] ?? '').toUpperCase();
    const relayed = `:${session.nick}!${session.user}@${BOT_HOST} ${line}\r\n`;
    if (Buffer.byteLength(relayed) > 512) {
      this.tooLong.push(line);
      return this.numeric(session, '417', ':Input line was too long');
    }
    this.command(session, command, params, tags);
  }

  private command(session: Session, command: string, params: string[], tags: Map<string, string>): void {
    switch (command) {
      case 'CAP':
        return this.cap(session, params);
      case 'PASS':
        session.password = params[0];
        return;
      case 'NICK':
        session.nick = params[0] ?? '';
        return this.maybeRegister(session);
      case 'USER':
        session.user = params[0] ?? '';
        return this.maybeRegister(session);
      case 'AUTHENTICATE':
        return this.authenticate(session, params[0] ?? '');
      case 'PING':
        return this.write(session, `:${HOST} PONG ${HOST} :${params[0] ?? ''}`);
      case 'JOIN':
        for (const channel of (params[0] ?? '').split(',')) {
          this.joined.add(channel);
          this.write(session, `:${session.nick}!${session.user}@${BOT_HOST} JOIN ${channel}`);
          this.numeric(session, '366', channel, ':End of /NAMES list');
        }
        return;
      case 'BATCH':
        return this.batch(session, params);
      case 'PRIVMSG':
        return this.privmsg(session, params, tags);
      case 'TAGMSG':
        if (tags.get('+typing') === 'active') this.typing.set(params[0]!, (this.typing.get(params[0]!) ?? 0) + 1);
        return;
      case 'QUIT':
        this.write(session, 'ERROR :Closing link');
        return void session.socket.end();
      default:
        return;
    }
  }

  private cap(session: Session, params: string[]): void {
    const sub = (params[0] ?? '').toUpperCase();
    if (sub === 'LS') {
      session.negotiating = true;
      this.write(session, `:${HOST} CAP * LS :${this.caps.join(' ')}`);
    } else if (sub === 'REQ') {
      const asked = (params[1] ?? '').split(' ').filter(Boolean);
      const known = this.caps.map((c) => c.split('=')[0]!);
      if (asked.every((c) => known.includes(c))) {
        for (const c of asked) session.caps.add(c);
        this.write(session, `:${HOST} CAP * ACK :${asked.join(' ')}`);
      } else this.write(session, `:${HOST} CAP * NAK :${asked.join(' ')}`);
    } else if (sub === 'END') {
      session.negotiating = false;
      this.maybeRegister(session);
    }
  }

  private authenticate(session: Session, param: string): void {
    if (param === 'PLAIN') return this.write(session, 'AUTHENTICATE +');
    const [, user, password] = Buffer.from(param, 'base64').toString('utf8').split('\0');
    if (user === this.saslUser && password === this.saslPassword) {
      session.password = this.password;
      this.numeric(session, '900', `${session.nick}!${session.user}@${BOT_HOST}`, user, ':You are now logged in');
      this.numeric(session, '903', ':SASL authentication successful');
    } else this.numeric(session, '904', ':SASL authentication failed');
  }

  private maybeRegister(session: Session): void {
    if (session.registered || session.negotiating || !session.nick || !session.user) return;
    if (this.requirePassword && session.password !== this.password) {
      this.numeric(session, '464', ':Password incorrect');
      this.write(session, 'ERROR :Closing link (Bad password)');
      return void session.socket.end();
    }
    session.registered = true;
    this.numeric(session, '001', ':Welcome to the loopback IRC network');
    this.numeric(session, '005', 'CASEMAPPING=rfc1459', 'CHANTYPES=#&', ':are supported by this server');
    this.numeric(session, '376', ':End of /MOTD command.');
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  private batch(session: Session, params: string[]): void {
    const ref = params[0] ?? '';
    if (ref.startsWith('+') && params[1] === 'draft/multiline') {
      session.batch = { ref: ref.slice(1), target: params[2] ?? '', lines: [] };
      return;
    }
    const open = session.batch;
    if (!ref.startsWith('-') || !open || open.ref !== ref.slice(1)) return;
    session.batch = undefined;
    const text = open.lines.map((l, i) => (i > 0 && !l.concat ? '\n' : '') + l.text).join('');
    const id = this.record(open.target, text, open.lines.length);
    this.echo(session, () => {
      const ours = `e${id}`;
      this.write(session, `@msgid=${id} :${HOST} BATCH +${ours} draft/multiline ${open.target}`);
      for (const l of open.lines) {
        const concat = l.concat ? ';draft/multiline-concat' : '';
        this.write(
          session,
          `@batch=${ours}${concat} :${session.nick}!${session.user}@${BOT_HOST} PRIVMSG ${open.target} :${l.text}`,
        );
      }
      this.write(session, `:${HOST} BATCH -${ours}`);
    });
  }

  private privmsg(session: Session, params: string[], tags: Map<string, string>): void {
    const [target = '', text = ''] = params;
    const ref = tags.get('batch');
    if (ref !== undefined && session.batch?.ref === ref) {
      session.batch.lines.push({ text, concat: tags.has('draft/multiline-concat') });
      return;
    }
    if (target.toLowerCase() === 'nickserv') return void this.nickserv.push(text);
    if (text === '') return this.numeric(session, '412', ':No text to send');
    const id = this.record(target, text, 1);
    this.echo(session, () =>
      this.write(session, `@msgid=${id} :${session.nick}!${session.user}@${BOT_HOST} PRIVMSG ${target} :${text}`),
    );
  }

  private record(target: string, text: string, lines: number): string {
    const id = `b${this.nextId++}`;
    this.sent.push({ id, target, text, lines, at: Date.now() });
    return id;
  }

  private echo(session: Session, send: () => void): void {
    if (!session.caps.has('echo-message')) return;
    if (this.hold?.on) this.hold.echoes.push(send);
    else send();
  }
}

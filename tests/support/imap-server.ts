// A loopback IMAP4rev1 server, enough of RFC 3501 for imapflow: CAPABILITY, LOGIN and AUTHENTICATE PLAIN, LIST,
// SELECT, NOOP, IDLE (RFC 2177, new mail pushed as `* n EXISTS`), UID FETCH (UID FLAGS BODY[] RFC822.SIZE) and UID
// STORE of flags, LOGOUT. One mailbox, INBOX; mail is appended by the test. Its days off: dropped connections.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

interface Stored {
  uid: number;
  raw: Buffer;
  flags: Set<string>;
}

const CAPABILITIES = 'IMAP4rev1 IDLE AUTH=PLAIN';

const unquote = (token: string): string => (token.startsWith('"') ? token.slice(1, -1).replace(/\\(.)/g, '$1') : token);

/** Tokens of a command line: atoms, quoted strings and parenthesised lists kept whole. */
function tokens(line: string): string[] {
  return line.match(/"(?:[^"\\]|\\.)*"|\((?:[^()]|\([^()]*\))*\)|\S+/g) ?? [];
}

class Session {
  selected = false;
  idleTag: string | undefined;
  private buffer = Buffer.alloc(0);
  private literal: { bytes: number; line: string } | undefined;
  private pendingAuth: string | undefined;

  constructor(
    readonly socket: Socket,
    private readonly server: ImapServer,
  ) {
    socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    socket.on('error', () => undefined);
    this.write(`* OK [CAPABILITY ${CAPABILITIES}] Tern test IMAP ready`);
  }

  write(line: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(typeof line === 'string' ? `${line}\r\n` : line);
  }

  private drain(): void {
    for (;;) {
      if (this.literal) {
        if (this.buffer.length < this.literal.bytes) return;
        const text = this.buffer.subarray(0, this.literal.bytes).toString('utf8');
        this.buffer = this.buffer.subarray(this.literal.bytes);
        this.literal.line += JSON.stringify(text);
        const rest = this.buffer.indexOf('\r\n');
        if (rest < 0) return;
        const line = this.literal.line + this.buffer.subarray(0, rest).toString('utf8');
        this.buffer = this.buffer.subarray(rest + 2);
        this.literal = undefined;
        this.lineIn(line);
        continue;
      }
      const end = this.buffer.indexOf('\r\n');
      if (end < 0) return;
      const line = this.buffer.subarray(0, end).toString('utf8');
      this.buffer = this.buffer.subarray(end + 2);
      const literal = /\{(\d+)(\+?)\}$/.exec(line);
      if (literal) {
        this.literal = { bytes: Number(literal[1]), line: line.slice(0, literal.index) };
        if (!literal[2]) this.write('+ go ahead');
        continue;
      }
      this.lineIn(line);
    }
  }

  private lineIn(line: string): void {
    this.server.commands.push(line.replace(/^(\S+ (LOGIN|AUTHENTICATE PLAIN)) .*/i, '$1 ***'));
    if (this.pendingAuth) {
      const tag = this.pendingAuth;
      this.pendingAuth = undefined;
      const [, user = '', password = ''] = Buffer.from(line.trim(), 'base64').toString('utf8').split('\0');
      this.login(tag, user, password);
      return;
    }
    if (this.idleTag) {
      if (line.trim().toUpperCase() === 'DONE') {
        this.write(`${this.idleTag} OK IDLE terminated`);
        this.idleTag = undefined;
      }
      return;
    }
    const [tag = '*', rawCommand = '', ...args] = tokens(line);
    let command = rawCommand.toUpperCase();
    let rest = args;
    if (command === 'UID') {
      command = `UID ${(args[0] ?? '').toUpperCase()}`;
      rest = args.slice(1);
    }
    this.command(tag, command, rest);
  }

  private login(tag: string, user: string, password: string): void {
    if (user === this.server.user && password === this.server.password) this.write(`${tag} OK LOGIN completed`);
    else this.write(`${tag} NO [AUTHENTICATIONFAILED] Invalid credentials`);
  }

  private command(tag: string, command: string, args: string[]): void {
    const server = this.server;
    switch (command) {
      case 'CAPABILITY':
        this.write(`* CAPABILITY ${CAPABILITIES}`);
        return this.write(`${tag} OK CAPABILITY completed`);
      case 'NOOP':
        return this.write(`${tag} OK NOOP completed`);
      case 'LOGIN':
        return this.login(tag, unquote(args[0] ?? ''), unquote(args[1] ?? ''));
      case 'AUTHENTICATE': {
        if ((args[0] ?? '').toUpperCase() !== 'PLAIN') return this.write(`${tag} NO unsupported mechanism`);
        if (args[1]) {
          this.pendingAuth = tag;
          return this.lineIn(args[1]);
        }
        this.pendingAuth = tag;
        return this.write('+ ');
      }
      case 'LIST':
        if (unquote(args[1] ?? '') === '') this.write('* LIST (\\Noselect) "/" ""');
        else this.write('* LIST (\\HasNoChildren) "/" "INBOX"');
        return this.write(`${tag} OK LIST completed`);
      case 'SELECT':
      case 'EXAMINE': {
        if (unquote(args[0] ?? '').toUpperCase() !== 'INBOX')
          return this.write(`${tag} NO [NONEXISTENT] no such mailbox`);
        this.selected = true;
        this.write('* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)');
        this.write(`* ${server.messages.length} EXISTS`);
        this.write('* 0 RECENT');
        this.write('* OK [PERMANENTFLAGS (\\Seen \\Answered \\Flagged \\Deleted \\Draft)] flags');
        this.write(`* OK [UIDVALIDITY ${server.uidValidity}] UIDs valid`);
        this.write(`* OK [UIDNEXT ${server.uidNext}] next UID`);
        return this.write(`${tag} OK [READ-WRITE] ${command} completed`);
      }
      case 'IDLE':
        this.idleTag = tag;
        return this.write('+ idling');
      case 'UID FETCH':
        return this.fetch(tag, args[0] ?? '', args.slice(1).join(' ').toUpperCase());
      case 'UID STORE':
        return this.store(tag, args[0] ?? '', (args[1] ?? '').toUpperCase(), args.slice(2).join(' '));
      case 'LOGOUT':
        this.write('* BYE logging out');
        this.write(`${tag} OK LOGOUT completed`);
        this.socket.end();
        return;
      default:
        return this.write(`${tag} BAD ${command} is not known here`);
    }
  }

  private fetch(tag: string, set: string, items: string): void {
    const server = this.server;
    for (const message of server.inSet(set)) {
      const seq = server.messages.indexOf(message) + 1;
      const parts = [`UID ${message.uid}`];
      if (items.includes('FLAGS')) parts.push(`FLAGS (${[...message.flags].join(' ')})`);
      if (items.includes('RFC822.SIZE')) parts.push(`RFC822.SIZE ${message.raw.length}`);
      const body = items.includes('BODY[]') || items.includes('BODY.PEEK[]');
      if (items.includes('BODY[]')) message.flags.add('\\Seen');
      if (body) {
        this.write(Buffer.from(`* ${seq} FETCH (${parts.join(' ')} BODY[] {${message.raw.length}}\r\n`));
        this.write(Buffer.concat([message.raw, Buffer.from(')\r\n')]));
      } else this.write(`* ${seq} FETCH (${parts.join(' ')})`);
    }
    this.write(`${tag} OK UID FETCH completed`);
  }

  private store(tag: string, set: string, how: string, flagList: string): void {
    const flags = flagList.replace(/[()]/g, '').split(/\s+/).filter(Boolean);
    for (const message of this.server.inSet(set)) {
      if (how.startsWith('+')) for (const flag of flags) message.flags.add(flag);
      else if (how.startsWith('-')) for (const flag of flags) message.flags.delete(flag);
      else message.flags = new Set(flags);
      if (!how.endsWith('.SILENT')) {
        const seq = this.server.messages.indexOf(message) + 1;
        this.write(`* ${seq} FETCH (UID ${message.uid} FLAGS (${[...message.flags].join(' ')}))`);
      }
    }
    this.write(`${tag} OK UID STORE completed`);
  }
}

export class ImapServer {
  readonly user: string;
  readonly password: string;
  readonly uidValidity = 1000 + Math.floor(Math.random() * 1000);
  uidNext = 1;
  readonly messages: Stored[] = [];
  /** Every command line taken, logins masked. */
  readonly commands: string[] = [];
  private server!: Server;
  private readonly sessions = new Set<Session>();
  private refusing = false;
  private connected = 0;

  private constructor(user: string, password: string) {
    this.user = user;
    this.password = password;
  }

  static async start(user: string, password: string): Promise<ImapServer> {
    const imap = new ImapServer(user, password);
    imap.server = createServer((socket) => imap.accept(socket));
    await new Promise<void>((resolve) => imap.server.listen(0, '127.0.0.1', resolve));
    return imap;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  connections(): number {
    return this.connected;
  }

  /** Clients logged in with the mailbox selected. */
  selectedClients(): number {
    return [...this.sessions].filter((s) => s.selected && !s.socket.destroyed).length;
  }

  /** Delivers a mail into INBOX and tells every client that has it selected. */
  append(raw: Buffer): number {
    const uid = this.uidNext++;
    this.messages.push({ uid, raw, flags: new Set() });
    for (const session of this.sessions) if (session.selected) session.write(`* ${this.messages.length} EXISTS`);
    return uid;
  }

  seen(uid: number): boolean {
    return this.messages.find((m) => m.uid === uid)?.flags.has('\\Seen') ?? false;
  }

  /** Messages of a UID set (`1,3:5,7:*`); `n:*` past the last UID still holds the last message, as RFC 3501 says. */
  inSet(set: string): Stored[] {
    const last = this.messages.at(-1)?.uid ?? 0;
    const wanted = (uid: number): boolean =>
      set.split(',').some((part) => {
        const [a = '', b = a] = part.split(':');
        const [lo, hi] = [a, b].map((v) => (v === '*' ? last : Number(v))) as [number, number];
        return uid >= Math.min(lo, hi) && uid <= Math.max(lo, hi);
      });
    return this.messages.filter((m) => wanted(m.uid));
  }

  /** Drops every connection and refuses new ones for `ms`. */
  async outage(ms: number): Promise<void> {
    this.refusing = true;
    for (const session of this.sessions) session.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.refusing = false;
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.connected++;
    if (this.refusing) {
      socket.destroy();
      return;
    }
    const session = new Session(socket, this);
    this.sessions.add(session);
    socket.on('close', () => this.sessions.delete(session));
  }
}

import { randomUUID } from 'node:crypto';
import { Client, type BatchEvent, type MessageEvent } from 'irc-framework';
import { CHAT_COMMANDS } from '../command-names.js';
import { ChannelError, type Channel, type ChannelCapabilities, type ChannelHooks } from '../channel.js';
import { renderMarkdown } from '../markdown.js';
import { inbound } from './inbound.js';
import { lineBudget, toLines, type IrcLine } from './lines.js';

export interface IrcOptions {
  host: string;
  port: number;
  tls: boolean;
  nick: string;
  user?: string;
  realName?: string;
  password?: string;
  nickservPassword?: string;
  sasl?: { account: string; password: string };
  channels: string[];
  requestCaps: string[];
  /** How long the login may take before the channel gives up (a server that accepts and says nothing). */
  loginTimeoutMs?: number;
  /** How long a sent message may wait for the server's echo before it counts as maybe sent. */
  echoTimeoutMs?: number;
}

/** A reply part stays within what one `draft/multiline` batch of the common servers (4096 bytes) carries. */
export const IRC_MAX_LENGTH = 1000;

const MULTILINE = 'draft/multiline';

interface Waiting {
  resolve(id: string): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** `max-bytes=4096,max-lines=100` as numbers. */
function multilineLimits(value: string | undefined): { bytes: number; lines: number } {
  const field = (name: string): number => Number(new RegExp(`${name}=(\\d+)`).exec(value ?? '')?.[1] ?? 0);
  return { bytes: field('max-bytes'), lines: field('max-lines') || 100 };
}

/**
 * One nick on one IRC network through irc-framework. Private messages and messages in the joined channels come in;
 * a reply goes out as one IRCv3 `draft/multiline` batch where the server offers it, else line by line. With
 * `echo-message` a send settles when the server echoes it, so a part is known to have arrived.
 */
export class IrcChannel implements Channel {
  readonly kind = 'irc';
  readonly capabilities: ChannelCapabilities = {
    commands: CHAT_COMMANDS,
    streaming: false,
    // IRC has no edits: a placeholder stays and the reply follows it.
    edits: false,
    maxMessageLength: IRC_MAX_LENGTH,
  };
  private client: Client | undefined;
  private stopping = false;
  private readonly echoes: Waiting[] = [];
  /** Sends go out one at a time: the server's echoes come back in the same order. */
  private queue: Promise<unknown> = Promise.resolve();
  private batches = 0;

  constructor(private readonly options: IrcOptions) {}

  start(hooks: ChannelHooks): Promise<void> {
    this.stopping = false;
    const client = new Client();
    this.client = client;
    client.requestCap([MULTILINE, ...this.options.requestCaps]);
    return new Promise<void>((resolve, reject) => {
      let registered = false;
      const loginMs = this.options.loginTimeoutMs ?? 30_000;
      const login = setTimeout(() => {
        reject(new ChannelError('network', `the IRC server did not welcome the bot within ${loginMs / 1000} s`));
        client.quit();
      }, loginMs);
      client.on('registered', () => {
        registered = true;
        clearTimeout(login);
        if (this.options.nickservPassword) client.say('NickServ', `IDENTIFY ${this.options.nickservPassword}`);
        for (const channel of this.options.channels) client.join(channel);
        hooks.onConnected();
        resolve();
      });
      client.on('nick in use', () => {
        if (!registered) client.changeNick(`${this.options.nick}_`);
      });
      client.on('irc error', (event: { error: string; reason?: string }) => {
        if (event.error === 'password_mismatch') reject(new ChannelError('unauthorized', 'the server refused PASS'));
      });
      client.on('sasl failed', (event: { reason: string }) => {
        reject(new ChannelError('unauthorized', `SASL login failed (${event.reason})`));
        client.quit();
      });
      client.on('close', () => {
        this.failEchoes(new ChannelError('network', 'the IRC connection closed'));
        clearTimeout(login);
        if (!registered) reject(new ChannelError('network', 'the IRC server closed the connection before login'));
        else if (!this.stopping && this.client === client)
          hooks.onFailed(new ChannelError('network', 'the IRC connection closed'));
      });
      client.on('privmsg', (event: MessageEvent) => {
        if (event.batch) return;
        if (client.caseCompare(event.nick, client.user.nick)) return this.echoed(event.tags.msgid);
        const message = inbound(event.nick, event.target, event.message, event, client.user.nick);
        if (message) void hooks.onMessage(message);
      });
      client.on(`batch start ${MULTILINE}`, (batch: BatchEvent) => {
        const first = batch.commands[0];
        if (!first) return;
        if (client.caseCompare(first.nick, client.user.nick)) return this.echoed(first.tags.msgid ?? batch.id);
        const text = batch.commands
          .map((c, i) => (i > 0 && !('draft/multiline-concat' in c.tags) ? '\n' : '') + (c.params[1] ?? ''))
          .join('');
        const message = inbound(first.nick, batch.params[0] ?? '', text, { tags: first.tags }, client.user.nick);
        if (message) void hooks.onMessage(message);
      });
      client.connect({
        host: this.options.host,
        port: this.options.port,
        tls: this.options.tls,
        nick: this.options.nick,
        username: this.options.user ?? this.options.nick,
        gecos: this.options.realName ?? this.options.nick,
        ...(this.options.password ? { password: this.options.password } : {}),
        // Without SASL settings an empty account: irc-framework would else try SASL with the server password.
        account: this.options.sasl ?? {},
        // The gateway restarts a dropped channel with its backoff; the library's own retries would hide it.
        auto_reconnect: false,
        enable_echomessage: true,
        sasl_disconnect_on_fail: true,
      });
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const client = this.client;
    this.client = undefined;
    if (!client?.connected) return;
    await new Promise<void>((resolve) => {
      client.once('close', () => resolve());
      client.quit('bye');
      setTimeout(resolve, 2000).unref();
    });
  }

  send(replyTo: string, text: string): Promise<string> {
    // IRC shows text as it is: Markdown is reduced to its words.
    const plain = renderMarkdown(text, 'plain');
    const next = this.queue.then(() => this.sendNow(replyTo, plain));
    this.queue = next.catch(() => undefined);
    return next;
  }

  async edit(): Promise<void> {
    throw new ChannelError('platform', 'IRC cannot edit a sent message');
  }

  /** The IRCv3 typing notification, where the server passes client tags. */
  async typing(replyTo: string): Promise<void> {
    if (this.enabled('message-tags')) this.client?.tagmsg(replyTo, { '+typing': 'active' });
  }

  async typingDone(replyTo: string): Promise<void> {
    if (this.enabled('message-tags')) this.client?.tagmsg(replyTo, { '+typing': 'done' });
  }

  private enabled(cap: string): boolean {
    return this.client?.network.cap.enabled.includes(cap) ?? false;
  }

  private sendNow(target: string, text: string): Promise<string> {
    const client = this.client;
    if (!client?.connected)
      throw new ChannelError('network', 'the IRC connection is not open', {
        delivered: 'no',
        retry: true,
      });
    const budget = lineBudget(client.user.nick, this.options.user ?? this.options.nick, target);
    const all = toLines(text, budget);
    const limits = multilineLimits(client.network.cap.available.get(MULTILINE));
    const batched =
      this.enabled(MULTILINE) &&
      all.length > 1 &&
      all.length <= limits.lines &&
      (limits.bytes === 0 || Buffer.byteLength(text) <= limits.bytes);
    // Outside a batch an empty line would be an empty message, which servers refuse.
    const lines = batched ? all : all.filter((line) => line.text !== '');
    // An echo is waited for once per message: a batch is echoed as one, lone lines each.
    const expected = batched ? 1 : lines.length;
    const echoed = this.enabled('echo-message') ? Array.from({ length: expected }, () => this.awaitEcho()) : [];
    if (batched) this.sendBatch(client, target, lines);
    else for (const line of lines) client.raw(`PRIVMSG ${target} :${line.text}`);
    if (echoed.length === 0) return Promise.resolve(randomUUID());
    return Promise.all(echoed).then((ids) => ids.at(-1) ?? randomUUID());
  }

  private sendBatch(client: Client, target: string, lines: IrcLine[]): void {
    const ref = `t${++this.batches}`;
    client.raw(`BATCH +${ref} ${MULTILINE} ${target}`);
    for (const line of lines) {
      const tags = line.concat ? `@batch=${ref};draft/multiline-concat` : `@batch=${ref}`;
      client.raw(`${tags} PRIVMSG ${target} :${line.text}`);
    }
    client.raw(`BATCH -${ref}`);
  }

  private awaitEcho(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const timeoutMs = this.options.echoTimeoutMs ?? 30_000;
      const waiting: Waiting = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.echoes.splice(this.echoes.indexOf(waiting), 1);
          reject(
            new ChannelError('network', `the IRC server did not echo a message within ${timeoutMs / 1000} s`, {
              delivered: 'unknown',
              retry: false,
            }),
          );
        }, timeoutMs),
      };
      this.echoes.push(waiting);
    });
  }

  private echoed(id: string | undefined): void {
    const waiting = this.echoes.shift();
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting.resolve(id ?? randomUUID());
  }

  private failEchoes(error: Error): void {
    for (const waiting of this.echoes.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
  }
}

// The part of irc-framework's client (it ships no types) that the IRC channel uses.
declare module 'irc-framework' {
  export interface ConnectOptions {
    host: string;
    port: number;
    tls?: boolean;
    nick: string;
    username?: string;
    gecos?: string;
    password?: string;
    account?: { account?: string; password?: string };
    auto_reconnect?: boolean;
    enable_echomessage?: boolean;
    message_max_length?: number;
    ping_interval?: number;
    ping_timeout?: number;
    sasl_disconnect_on_fail?: boolean;
  }

  export interface MessageEvent {
    from_server: boolean;
    nick: string;
    ident?: string;
    hostname?: string;
    target: string;
    message: string;
    tags: Record<string, string>;
    account?: string;
    batch?: { id: string; type: string };
  }

  export interface BatchEvent {
    id: string;
    type: string;
    params: string[];
    commands: Array<{ nick: string; command: string; params: string[]; tags: Record<string, string> }>;
  }

  export class Client {
    constructor(options?: Partial<ConnectOptions>);
    user: { nick: string };
    network: { cap: { enabled: string[]; available: Map<string, string> } };
    connected: boolean;
    connect(options: ConnectOptions): void;
    requestCap(caps: string | string[]): void;
    raw(...args: unknown[]): void;
    say(target: string, message: string, tags?: Record<string, string>): void;
    tagmsg(target: string, tags: Record<string, string>): void;
    join(channel: string, key?: string): void;
    changeNick(nick: string): void;
    quit(message?: string): void;
    caseCompare(a: string, b: string): boolean;
    on(event: string, listener: (...args: never[]) => void): this;
    once(event: string, listener: (...args: never[]) => void): this;
    removeAllListeners(event?: string): this;
  }
}

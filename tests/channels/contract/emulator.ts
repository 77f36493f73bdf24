// What the channel contract kit needs from a loopback emulator of a platform's wire protocol: the user's side of the
// platform (saying things, seeing what the bot sent) and the platform's bad days (429s, refused formatting, dropped
// connections, answers that never come back). Each emulator speaks its platform's wire format byte for byte; the kit
// only ever sees this interface.

export interface SentMessage {
  /** The platform's id of the bot's message. */
  id: string;
  /** Its text now (after every edit), as the platform received it (in its dialect). */
  text: string;
  /** The texts it had before, oldest first: one entry per edit. */
  edits: string[];
  /** The platform's formatting mode, where one is named on the wire (Telegram's `parse_mode`). */
  format?: string;
  /** A file the bot uploaded with the message. */
  file?: { name: string; bytes: Buffer; caption?: string };
  /** When the platform took it (epoch ms). */
  at: number;
}

/** One message a user sent; what `redeliver` hands the bot again. */
export interface Said {
  id: string;
}

/** One chat (or one thread of a group) between a user and the bot. */
export interface Conversation {
  /** The user as `allow_from` names them. */
  readonly sender: string;
  say(text: string): Promise<Said>;
  /** A picture with a caption. */
  sendImage(bytes: Buffer, caption: string): Promise<Said>;
  /** A voice recording. */
  sendVoice(bytes: Buffer): Promise<Said>;
  /** Hands an already delivered message to the bot again, as the platform does after a lost acknowledgement. */
  redeliver(said: Said): Promise<void>;
  /** What the bot sent to this chat (this thread only, for a thread), oldest first. */
  sent(): SentMessage[];
  /** How often the bot showed it is typing here. */
  typing(): number;
}

export interface ContractEmulator {
  /** `channel_list.<name>.settings` that point the channel at this emulator (tokens, base URLs, secrets). */
  settings(): Record<string, unknown>;
  /** Every secret in `settings()`: none may ever appear in a log. */
  secrets(): string[];
  /** For webhook platforms: where the gateway takes this channel's webhooks (`/webhooks/<type>/<name>`). */
  attach?(webhookUrl: string): void;
  /** A fresh direct chat with a new user called `name`. */
  direct(name: string): Conversation;
  /** A fresh thread in a group, whose messages address the bot (platforms with threads). */
  thread?(name: string): Conversation;
  /** The next `count` sends answer 429 with `retry_after` seconds. */
  rateLimitSends(count: number, retryAfterSeconds: number): void;
  /** When each 429 was answered (epoch ms). */
  rateLimited(): number[];
  /** The next formatted send is refused as the platform refuses bad markup. */
  rejectNextFormat?(): void;
  /** Drops the bot's connection (or refuses its calls) for `ms`, then takes it again. */
  outage(ms: number): Promise<void>;
  /** How many times the bot connected (or polled afresh after a failure). */
  connections(): number;
  /** From now on sends are carried out but their answers kept back until `release()`, as when the bot dies mid-send. */
  holdSendAnswers(): { held(): number; release(): void };
  close(): Promise<void>;
}

/** Parts of the contract a platform lacks; the kit skips them, saying why. */
export type ContractFeature =
  | 'threads'
  | 'captions'
  | 'media'
  | 'voice'
  | 'upload'
  /** A file goes out with no text of its own: the kit then takes the caption from the message that follows it. */
  | 'file_captions'
  | 'formatting'
  | 'format_fallback'
  | 'edits'
  | 'typing'
  | 'redelivery'
  | 'rate_limit'
  | 'reconnect';

export interface ChannelContract {
  /** The channel kind (`channel_list.<name>.type`). */
  kind: string;
  /** The platform's longest message, in characters as it counts them. */
  maxMessageLength: number;
  /** How the platform counts a received text's length (Telegram: after its HTML is parsed); `length` by default. */
  measure?: (text: string) => number;
  /**
   * The reply `echo: **bold** and \`code\`` as the platform receives it (its dialect), or the same text where the
   * platform reads Markdown itself.
   */
  formatted: string;
  /** The same reply as plain text, after the platform refused the formatting. */
  plain: string;
  emulator(): Promise<ContractEmulator>;
  lacks?: Partial<Record<ContractFeature, string>>;
}

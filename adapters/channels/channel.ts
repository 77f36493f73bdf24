import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CommandName } from './command-names.js';

/** What a channel can do; the dispatcher checks commands and splits replies by these. */
export interface ChannelCapabilities {
  /** Chat commands this channel lets users run; a registered command outside this list is refused. */
  commands: readonly CommandName[];
  streaming: boolean;
  /**
   * Sent messages can be edited (default true). Without, a placeholder is followed by the reply as a new message and
   * replies are never streamed (LINE, WhatsApp's Cloud API).
   */
  edits?: boolean;
  /** Longest text one message may carry; longer replies are split. */
  maxMessageLength: number;
  /**
   * Longest text that may go with a file (`sendFile`'s caption); longer text goes before the file on its own. Default:
   * `maxMessageLength`.
   */
  maxCaptionLength?: number;
  /**
   * Its users are the owner at this machine, signed in (the dashboard's chat): its turns are local, like the
   * CLI's, so tools apply no remote rules (exec runs without `tools.exec.allow_remote`). Every other channel is remote.
   */
  local?: boolean;
  /**
   * Every send goes out through Tern's HTTP client (`adapters/http/when-written.ts`), which tells the moment a request
   * is written: a part still waiting for a connection when the process ends is then known not to have left. Without,
   * a part counts as maybe sent from the moment it is handed to the channel.
   */
  reportsWrites?: boolean;
  /**
   * The platform hands out again what the channel did not acknowledge (Telegram's update offset): a message the gateway
   * cannot keep now (`NotKeptError`) is answered later. Without, such a message is gone and its sender is asked to
   * send it again.
   */
  redelivers?: boolean;
}

/**
 * The gateway cannot keep an inbound message now (its event log cannot write): a channel whose platform redelivers
 * leaves it unacknowledged, so the platform hands it out again; the channel stays connected.
 */
export class NotKeptError extends Error {
  readonly code = 'not_kept';
  constructor(reason: string) {
    super(reason);
    this.name = 'NotKeptError';
  }
}

/** An inbound message as a channel reports it, in the dispatch vocabulary of the spec. */
export interface ChannelMessage {
  /** Unique per channel account: a redelivery carries the same id. */
  messageId: string;
  /** `direct:<id>`, `group:<id>` or `channel:<id>`. */
  chat: string;
  /** Where replies go on the platform (the raw chat id). */
  replyTo: string;
  sender: string;
  /** Every normalized form of the sender that `allow_from` may name (id, @username). */
  senderAliases: string[];
  text: string;
  space?: string;
  topic?: string;
  /** The bot was addressed by name or by a reply to it. */
  mentioned: boolean;
  /** Voice recordings and audio files, fetched with `Channel.download` when a transcription model is set. */
  audio?: Array<{ fileId: string; mime: string; name: string }>;
  /** Pictures, videos and documents, fetched with `Channel.download` before the turn and named in its text. */
  media?: Array<{ kind: 'image' | 'video' | 'file'; fileId: string; mime: string; name: string }>;
}

/**
 * A file to send: an image `image_generate` drew, a file the `message` or `send_file` tool attached (the tool checked
 * it against the sandbox's read rules). The channel reads it when it sends it.
 */
export interface OutboundFile {
  kind: 'image' | 'audio' | 'video' | 'file';
  path: string;
  mime?: string;
  /** Text shown with the file. */
  caption?: string;
}

/** A button under a message; pressing it sends `reply` as the user's own message (e.g. `/approve 3f2a`). */
export interface Choice {
  label: string;
  reply: string;
}

export interface ChannelHooks {
  /**
   * An inbound message. What it returns settles once the message is kept for good (in the event log): a channel whose
   * platform redelivers what it did not acknowledge (Telegram's update offset) acknowledges only then.
   */
  onMessage(message: ChannelMessage): void | Promise<void>;
  /** The connection is up (or came back). */
  onConnected(): void;
  /** The connection broke; the supervisor restarts the channel. */
  onFailed(error: Error): void;
}

/** An HTTP request the gateway's server took for a channel at its webhook route, body already read (and capped). */
export interface WebhookRequest {
  method: string;
  /** Header names in lower case. */
  headers: Record<string, string | string[] | undefined>;
  query: URLSearchParams;
  body: Buffer;
}

/** What the gateway answers the platform. */
export interface WebhookAnswer {
  status: number;
  body?: string;
  contentType?: string;
}

/** One account of one messaging platform. */
export interface Channel {
  readonly kind: string;
  readonly capabilities: ChannelCapabilities;
  start(hooks: ChannelHooks): Promise<void>;
  stop(): Promise<void>;
  /** Sends one message and returns the platform's id for it. */
  send(replyTo: string, text: string): Promise<string>;
  edit(replyTo: string, messageId: string, text: string): Promise<void>;
  /** Sends a file (a photo where the platform shows images) and returns the platform's id for the message. */
  sendFile?(replyTo: string, file: OutboundFile): Promise<string>;
  /**
   * Sends a message with buttons, for platforms that have them (Telegram inline keyboards, Slack and Discord buttons).
   */
  sendChoices?(replyTo: string, text: string, choices: readonly Choice[]): Promise<string>;
  /** Best effort: a platform that refuses it is not an error worth a reply. */
  typing(replyTo: string): Promise<void>;
  /** For platforms whose indicator stays on until told: called once the reply's last part is out. */
  typingDone?(replyTo: string): Promise<void>;
  /**
   * The address a text to a chat goes to, for a chat as the gateway and its tools name it (`direct:<id>`,
   * `group:<id>`, `channel:<id>`) or as the platform does. Without it the bare id is sent to: enough where the ids of
   * users and groups cannot be confused.
   */
  replyToOf?(chat: string): string;
  /** The bytes of a file a user sent, for platforms that hand out file ids. */
  download?(fileId: string): Promise<Buffer>;
  /**
   * For platforms that push updates over HTTP: the gateway serves this at `/webhooks/<type>/<name>` (or
   * `webhookPath`). It checks the signature (401 and no message on a bad one) and the replay window itself.
   */
  webhook?(request: WebhookRequest): Promise<WebhookAnswer>;
  /** The route the platform posts to, where the peer runtime lets users choose it (LINE's `webhook_path`). */
  readonly webhookPath?: string;
  /**
   * For channels whose users' clients connect to the gateway (the Pico Protocol's WebSocket): the gateway's HTTP
   * server hands over each upgrade request to `upgradePath`; the channel checks who asks and answers (401 or a socket).
   */
  upgrade?(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly upgradePath?: string;
}

/** What a failed send (or edit) tells about the message, as far as the platform's answer says. */
export interface SendFailure {
  /**
   * `no`: the platform did not take it (a refusal, a rate limit, a request that never reached it); `unknown`: it may
   * have (a server error or a broken connection after the request was sent): sending it again may show it twice.
   */
  delivered: 'no' | 'unknown';
  /** Whether the same send may succeed later (a rate limit, an outage); a refusal such as a bad chat id never will. */
  retry: boolean;
  /** The platform asked to wait this long before the next try (Telegram's `retry_after`). */
  retryAfterMs?: number;
}

export type ChannelErrorCode =
  | 'unauthorized'
  | 'network'
  | 'stalled'
  | 'bad_settings'
  | 'platform'
  | 'rate_limited'
  | 'rejected_format';

/**
 * A channel failure with a reason the supervisor can act on; a failed send says what it knows in `failure`.
 * `rate_limited` carries the platform's `retry_after` (`failure.retryAfterMs`); `rejected_format` says the platform
 * refused the message's formatting (the plain text may pass).
 */
export class ChannelError extends Error {
  constructor(
    readonly code: ChannelErrorCode,
    message: string,
    readonly failure?: SendFailure,
  ) {
    super(message);
    this.name = 'ChannelError';
  }

  /** How long the platform asked to wait before the next call (a 429's `retry_after`). */
  get retryAfterMs(): number | undefined {
    return this.failure?.retryAfterMs;
  }
}

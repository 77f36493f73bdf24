// The dashboard API's answers, defined once: for the launcher that sends them (adapters/launcher/api imports these
// types) and the pages that read them. Types only: nothing here runs.
import type { ChatMessage, Envelope } from './index.js';

/** `failure` says why the last start failed (an invalid config, say); `starting` and `stopping` are on the way. */
export type GatewayStatus =
  | { state: 'running'; since: number }
  | { state: 'starting' | 'stopping'; since: number }
  | { state: 'stopped'; since: number; failure?: string };

/**
 * One move of a state chart: `event` leads to `target` (a state's path below the machine's root, e.g.
 * `showing.message_updated`; none when the move only runs actions), chosen by `guards` where one event has
 * several targets.
 */
export type ChartTransition = { event: string; target?: string; guards: string[] };

/** A state chart as the machines page draws it: nested states in definition order, each with its moves. */
export type ChartNode = {
  key: string;
  initial?: string;
  final: boolean;
  states: ChartNode[];
  transitions: ChartTransition[];
};

export type Move = { from?: string; to: string; event: string; at: number; seq: number };

/** One live actor as the machines page shows it. */
export type ActorView = {
  actor: string;
  /**
   * How the board knows it: the actor id, or in a cluster (#27) `<actor>@<stream>`, since each gateway's actors have
   * the same ids (`gateway`, `agent:main`). `/api/actors/:key` and the machines page's links use it.
   */
  key: string;
  /** In a cluster: the gateway running it and the event stream it runs on (a member's own, a channel account's). */
  gateway?: string;
  stream?: string;
  machine: string;
  state: string;
  last_event: string;
  at: number;
  stopped: boolean;
  agent?: string;
  session?: string;
  turn?: string;
  /**
   * The actor it belongs to in the machines tree (gateway → channels, heartbeat, cron jobs, MCP servers and
   * agents; agent → sessions; session → turns); the gateway has none.
   */
  parent?: string;
  /** Why it failed or ended: a channel's or MCP server's error, a turn's failure, the reason it stopped. */
  reason?: string;
  /** The few context values its machine shows, such as a session's queued messages. */
  context?: Record<string, string | number | boolean>;
  /** A session's readable key (`v=1|agent=…|channel=…|…`). */
  session_key?: string;
  /** The message that started a turn. */
  text?: string;
  /** The transitions that moved it, oldest first (the newest few). */
  history: Move[];
};

/** An actor as `/api/actors` lists it: its last move's origin (`from`) instead of its whole history. */
export type Actor = Omit<ActorView, 'history'> & { from?: string };

/** The states a turn or subagent ends in (a stopped or failed turn may still be shown, but it no longer runs). */
const ENDED = new Set(['done', 'completed', 'stopped', 'failed', 'aborted', 'canceled']);

/**
 * A turn or subagent that has ended: the machines page shows live actors as cards and lists finished turns apart
 * (`GET /api/actors?live=true` leaves them out).
 */
export const finishedWork = (actor: Pick<ActorView, 'machine' | 'state' | 'stopped'>): boolean =>
  (actor.machine === 'turn' || actor.machine === 'subagent') && (actor.stopped || ENDED.has(actor.state));
export type ActorDetail = ActorView & { chart: ChartNode | null };

/**
 * What a turn did between the user's message and the reply: the model's text between tool calls, and each tool call.
 */
export type Step =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; call_id: string; name: string; arguments: string; ok?: boolean; content?: string; chars?: number };

export type TranscriptMessage = {
  seq: number;
  at: number;
  turn?: string;
  message: ChatMessage;
  outcome?: 'completed' | 'stopped' | 'failed';
};

/**
 * A session's conversation as the model sees it (the history projection its prompts are built from, so
 * `/clear` and summaries apply), each message with its turn, and each turn's steps. The web chat's history
 * has no session until its first turn.
 */
export type Transcript = {
  session: string | null;
  summary: string | null;
  messages: TranscriptMessage[];
  steps: Record<string, Step[]>;
};

/** One session as the Sessions page lists it: who and where, how much, and when it was last active. */
export type SessionRow = {
  session: string;
  session_key: string;
  agent: string;
  channel: string;
  chat: string;
  /** Who wrote last (from `message.received`; absent for sessions reached only by the CLI or the heartbeat). */
  sender?: string;
  turns: number;
  /** Messages of the user and replies of the agent, across `/clear`. */
  messages: number;
  /** Model answers, their tokens (input counting cached input) and their cost as `/api/usage` prices it. */
  model_calls: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  unpriced_calls: number;
  /** Answers without usage figures: their tokens and cost are unknown. */
  unreported_calls: number;
  first_at: number;
  last_at: number;
  last_turn: string;
  /** The last message, the user's or the agent's. */
  last_text: string;
};

/** A web chat conversation: its own id (the `/pico/ws` frames' `session_id`), its session and its last message. */
export type Conversation = { session_id: string; session: string; turns: number; last_at: number; last_text: string };

/** A turn as the machines page's list of finished turns shows it (`GET /api/turns`). */
export type TurnListRow = {
  turn: string;
  session: string;
  agent: string;
  channel: string;
  chat: string;
  text: string;
  at: number;
  outcome: 'running' | 'completed' | 'stopped' | 'failed' | 'aborted';
  ms?: number;
};

/** One turn of a session as its page lists it. */
export type TurnRow = {
  turn: string;
  at: number;
  text: string;
  outcome: 'running' | 'completed' | 'stopped' | 'failed' | 'aborted';
  ms?: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  unpriced_calls: number;
  unreported_calls: number;
};

export type SessionDetail = Transcript & { about: SessionRow; turns: TurnRow[] };

type Bar = { label: string; start: number; end: number; ms: number; ok: boolean };

/** A model call's tokens as its answer reported them, and their cost (absent when the model has no price). */
export type CallUsage = {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cost_usd?: number;
};

/**
 * One bar of a turn's waterfall; times are ms from `turn.started`. `prompt` is the time spent building the
 * prompt (history, summary, workspace files) before the first model call: without it the waterfall would
 * start with an unexplained gap.
 */
export type Span =
  | (Bar & { kind: 'prompt'; messages: number; tools: number })
  | (Bar & { kind: 'model'; model: string; iteration: number; tool_calls: number; usage?: CallUsage; error?: string })
  | (Bar & { kind: 'chunks'; count: number })
  | (Bar & { kind: 'tool'; call_id: string; name: string; arguments: string; result_chars: number; error?: string })
  | (Bar & {
      kind: 'subagent';
      task: string;
      agent: string;
      mode: 'spawn' | 'subagent';
      turn?: string;
      outcome: string;
    });

/**
 * A subagent a turn started, for the turn view: its bar and its own turn's spans (times from the parent turn's
 * start), under the parent's `call` that started it, with the subagents it started in turn.
 */
export type ChildTimelineView = {
  task: string;
  call?: string;
  bar: Extract<Span, { kind: 'subagent' }>;
  spans: Span[];
  children: ChildTimelineView[];
};

/**
 * A turn's answers summed, as `tern replay --json` gives them: tokens, cost, the models that answered and those without
 * a price.
 */
export type TurnUsageView = Omit<UsageRowView, 'key'> & { models: string[]; unpriced_models: string[] };

/** `GET /api/turns/:id`: the turn's events, its waterfall's spans, its subagents' timelines and its usage. */
export type TurnView = {
  turn: string;
  session?: string;
  events: Envelope[];
  spans: Span[];
  children: ChildTimelineView[];
  usage: TurnUsageView;
};

/**
 * What a rerun reports: the replay actor's answer; where it diverges, `seq` is the recorded event at `index`
 * (the index counts only the events a turn machine records), absent when the new run recorded more.
 */
export type Rerun =
  | { identical: true; compared: number }
  | {
      identical: false;
      index: number;
      seq?: number;
      expected?: { type: string; data: unknown };
      actual?: { type: string; data: unknown };
    };

/**
 * One row of `/api/usage`, as `tern usage --json` prints it: a day, an hour, an agent, a session, a model, or the
 * total.
 */
export type UsageRowView = {
  key: string;
  turns: number;
  /** Model answers counted. */
  calls: number;
  /** All input tokens, cache reads and writes included. */
  input_tokens: number;
  /** Input read from the prompt cache. */
  cached_input_tokens: number;
  /** Input written to the prompt cache (the messages family bills these apart). */
  cache_write_input_tokens: number;
  /** All output tokens, reasoning included. */
  output_tokens: number;
  reasoning_tokens: number;
  /** The cost of the answers of priced models only. */
  cost_usd: number;
  /** Answers of models with no price: their cost is unknown, not 0. */
  unpriced_calls: number;
  /** Answers that came without usage figures: their tokens and cost are unknown, not 0. */
  unreported_calls: number;
};

/** One budget limit of one agent and how much of it the local day or month has spent. */
export type BudgetView = {
  agent: string;
  period: 'daily' | 'monthly';
  span: string;
  limit_usd: number;
  spent_usd: number;
  source: string;
};

/**
 * `GET /api/usage?since&by`: the rows (days and hours as local `2026-11-26` / `2026-11-26 14:00`, oldest first), the
 * total, the models without a price, and every configured budget with what it has spent (whatever `since` says).
 */
export type UsageReport = {
  by: 'day' | 'hour' | 'agent' | 'session' | 'model';
  since?: string;
  /** Prices (`model_list[].pricing` and the built-in ones) are in US dollars per million tokens. */
  currency: 'USD';
  rows: UsageRowView[];
  total: UsageRowView;
  unpriced_models: string[];
  budgets: BudgetView[];
};

/** One hit of `/api/memory/search`: a passage of a memory file, or a past turn with its session and time. */
export type MemoryHit =
  | {
      source: 'memory';
      score: number;
      path: string;
      startLine: number;
      endLine: number;
      snippet: string;
      citation: string;
    }
  | {
      source: 'sessions';
      score: number;
      session: string;
      turn_id: string;
      at: string;
      snippet: string;
      citation: string;
    };

/** `/api/memory/search?q=`: what `memory_search` finds over every chat of the agent, best first. */
export type MemorySearch = { query: string; agent: string; results: MemoryHit[] };

/** The subset of JSON Schema (draft 2020-12) that zod writes for the config and the config page reads. */
export type JsonSchema = {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';
  description?: string;
  default?: unknown;
  enum?: Array<string | number>;
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  /** A secret: the browser may send a new value and never sees the saved one. */
  writeOnly?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  /** A record's entries (`false` or absent on a closed object). */
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** `GET /api/config/schema`: the whole config, and each channel kind's own settings for the channel forms. */
export type ConfigSchemaReply = { schema: JsonSchema; channel_kinds: Record<string, JsonSchema> };

/** `GET /api/config`: the file as written, each secret replaced by its mask. */
export type ConfigReply = { path: string; exists: boolean; config: unknown };

/** `POST /api/config/check` and a refused `PUT /api/config`: the problems as `tern config validate` words them. */
export type ConfigCheck = { ok: boolean; problems: string[]; warnings: string[] };

/** `PUT /api/config` saved: the copy of the previous file (none when there was none), secrets masked again. */
export type ConfigSaved = { saved: true; backup?: string; warnings: string[]; config: unknown };

/** Something that went wrong, and when. */
export type LastError = { at: number; message: string };

/** `GET /api/status`: what the Status page shows as cards; secrets never appear, proxies are masked. */
export type StatusReply = {
  gateway: GatewayStatus['state'];
  models: Array<{
    name: string;
    provider: string;
    model: string;
    enabled: boolean;
    keys: number;
    proxy?: string;
    last_error?: LastError;
  }>;
  channels: Array<{
    name: string;
    type: string;
    enabled: boolean;
    /** `off` (disabled), `stopped` (the gateway is), `starting`, `connected` or `failed`. */
    state: 'off' | 'stopped' | 'starting' | 'connected' | 'failed';
    last_message?: { at: number; sender: string; text: string };
    last_error?: LastError;
    webhook_url?: string;
  }>;
  /** Tools grouped by what they work on, each with the limits the config sets for it. */
  tools: Array<{ group: string; tools: Array<{ name: string; description: string; limits: string[] }> }>;
  mcp: Array<{
    name: string;
    transport: string;
    target: string;
    enabled: boolean;
    state: 'off' | 'connected' | 'failed' | 'not started';
    tools?: number;
    last_error?: LastError;
  }>;
  cron: Array<{
    id: string;
    name: string;
    schedule: string;
    kind: string;
    enabled: boolean;
    next_run: string;
    last_outcome: string;
  }>;
};

/** `GET /api/pairing`: strangers waiting with a code, and the senders let in; as `tern pairing list --json`. */
export type PairingReply = {
  requests: Array<{
    code: string;
    channel: string;
    sender: string;
    aliases: string[];
    chat: string;
    expires_at: string;
  }>;
  approved: Array<{ channel: string; sender: string; aliases: string[]; approved_at: string; by: string }>;
};

/** `POST /api/pairing/:code/{approve,deny}` taken: who it was. */
export type PairingDecided = { code: string; decision: 'approve' | 'deny'; channel: string; sender: string };

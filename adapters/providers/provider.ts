import type { ChatMessage, ChatResponse } from '../../bus/index.js';
import type { Route } from '../http/client.js';
import type { HttpCall } from './http.js';

/** The peer runtime's reasoning levels; `adaptive` lets the model decide. */
export type ThinkingLevel = 'off' | 'low' | 'medium' | 'high' | 'xhigh' | 'adaptive';

/** Thinking tokens per level, the peer runtime's budgets (`off` and `adaptive` have none). */
export const THINKING_BUDGETS: Partial<Record<ThinkingLevel, number>> = {
  low: 4096,
  medium: 10_000,
  high: 32_000,
  xhigh: 128_000,
};

export type ProtocolFamily = 'chat-completions' | 'messages' | 'generate-content' | 'cloud-code' | 'copilot';

/** A tool as the model is told about it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  /** Native model id sent to the vendor, after model-selection rules. */
  model: string;
  system?: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  stream: boolean;
  /** Merged into the request body as given (`extra_body`). */
  extraBody?: Record<string, unknown>;
  headers?: Record<string, string>;
  maxTokens?: number;
  /** Sampling temperature (`agents.defaults.temperature`); unset leaves the vendor's default. */
  temperature?: number;
  /** The entry's `thinking_level`: each family's reasoning field (effort, thinking budget or thinkingConfig). */
  thinkingLevel?: ThinkingLevel;
  /**
   * The turn may search the web (`web_search` is offered and `tools.web.prefer_native` is on): the endpoint's own
   * search replaces `web_search` where it has one.
   */
  nativeSearch?: boolean;
}

export type StreamChunk = { kind: 'text' | 'reasoning'; delta: string };

export interface CallOptions {
  signal?: AbortSignal;
  /** Called for each visible delta while streaming, in order. */
  onChunk?: (chunk: StreamChunk) => void;
  /** Overrides the endpoint's wait for the answer to start (and for each pause in it). */
  firstByteTimeoutMs?: number;
}

/**
 * How an endpoint searches the web itself (`tools.web.prefer_native`): a tool the vendor runs, added to the request's
 * tools, or fields of the request body. `withFunctions: false`: the vendor refuses it beside function tools.
 */
export type NativeSearch =
  | { kind: 'tool'; tool: Record<string, unknown>; withFunctions: boolean }
  | { kind: 'fields'; fields: Record<string, unknown> };

/** One endpoint with one key: families implement this; pools, rotation and failover wrap it. */
export interface ProviderClient {
  readonly family: ProtocolFamily;
  chat(request: ChatRequest, options?: CallOptions): Promise<ChatResponse>;
}

export interface EndpointConfig {
  family: ProtocolFamily;
  apiBase: string;
  apiKey?: string;
  /** Sends the key raw in this header instead of the family's usual one (e.g. `api-key` for azure). */
  keyHeader?: string;
  /** The entry's proxy and answer size cap. */
  route?: Route;
  /** How long to wait for an answer to start (and for each pause in it); the client's default when absent. */
  firstByteTimeoutMs?: number;
  /** The endpoint's own web search, when it has one. */
  nativeSearch?: NativeSearch;
  /** How the Copilot family reaches the Copilot CLI (`model_list[].connect_mode`). */
  connectMode?: 'grpc' | 'stdio';
}

/** One HTTP call of a client: the endpoint's route and time limit, the call's own signal and limit first. */
export function callOf(
  endpoint: EndpointConfig,
  options: CallOptions,
  call: Pick<HttpCall, 'url' | 'headers' | 'body'>,
): HttpCall {
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? endpoint.firstByteTimeoutMs;
  return {
    ...call,
    signal: options.signal,
    ...(endpoint.route ? { route: endpoint.route } : {}),
    ...(firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs } : {}),
  };
}

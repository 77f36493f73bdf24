// The shapes the dashboard API answers with (adapters/launcher/api), as the pages read them.
import type { ChatMessage } from '../../bus/index.js';

export type GatewayStatus =
  | { state: 'running'; since: number }
  | { state: 'starting' | 'stopping'; since: number }
  | { state: 'stopped'; since: number; failure?: string };

export type ChartTransition = { event: string; target?: string; guards: string[] };
export type ChartNode = { key: string; initial?: string; final: boolean; states: ChartNode[]; transitions: ChartTransition[] };

export type Actor = {
  actor: string;
  machine: string;
  state: string;
  /** The state before the last move. */
  from?: string;
  last_event: string;
  at: number;
  stopped: boolean;
  agent?: string;
  session?: string;
  turn?: string;
  parent?: string;
  reason?: string;
  context?: Record<string, string | number | boolean>;
  session_key?: string;
  text?: string;
};

export type Move = { from?: string; to: string; event: string; at: number; seq: number };
export type ActorDetail = Actor & { chart: ChartNode | null; history: Move[] };

export type Step =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; call_id: string; name: string; arguments: string; ok?: boolean; content?: string; chars?: number };

export type TranscriptMessage = { seq: number; at: number; turn?: string; message: ChatMessage; outcome?: 'completed' | 'stopped' | 'failed' };
export type Transcript = { session: string | null; summary: string | null; messages: TranscriptMessage[]; steps: Record<string, Step[]> };

export type SessionRow = {
  session: string;
  session_key: string;
  agent: string;
  channel: string;
  chat: string;
  sender?: string;
  turns: number;
  messages: number;
  input_tokens: number;
  output_tokens: number;
  first_at: number;
  last_at: number;
  last_turn: string;
  last_text: string;
};

export type TurnRow = {
  turn: string;
  at: number;
  text: string;
  outcome: 'running' | 'completed' | 'stopped' | 'failed' | 'aborted';
  ms?: number;
  model_calls: number;
  input_tokens: number;
  output_tokens: number;
};

export type SessionDetail = Transcript & { about: SessionRow; turns: TurnRow[] };

type Bar = { label: string; start: number; end: number; ms: number; ok: boolean };
export type Span =
  | (Bar & { kind: 'prompt'; messages: number; tools: number })
  | (Bar & { kind: 'model'; model: string; iteration: number; input_tokens?: number; output_tokens?: number; tool_calls: number; error?: string })
  | (Bar & { kind: 'chunks'; count: number })
  | (Bar & { kind: 'tool'; name: string; arguments: string; result_chars: number; error?: string });

export type Rerun =
  | { identical: true; compared: number }
  | { identical: false; index: number; seq?: number; expected?: { type: string; data: unknown }; actual?: { type: string; data: unknown } };

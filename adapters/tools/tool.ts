import type * as z from 'zod';
import type { ImagePart } from '../../bus/index.js';

/**
 * What the pipeline knows for certain about a tool call. Tools never take these from the model's
 * arguments: a plan, a session or a sandbox is chosen only from here.
 */
export interface ToolContext {
  agent: string;
  /** Session id (`sk_v1_…`). */
  session: string;
  sessionKey: string;
  turn?: string;
  /** The channel the turn came from (`cli`, `telegram`, `system`, …) and its chat. */
  channel: string;
  chat: string;
  /** True for chat channels reached over a network (everything but `cli` and internal channels). */
  remote: boolean;
  workspace: string;
  signal: AbortSignal;
}

export type ToolMedia = { kind: 'image' | 'audio' | 'video' | 'file'; path: string; mime?: string };

/**
 * What the model receives. A failure is a result too: the model reads the message and carries on. `images` are
 * shown to the model with the text (`load_image`); `media` names the files the result is about.
 */
export type ToolResult =
  | { ok: true; content: string; media?: ToolMedia[]; images?: ImagePart[] }
  | { ok: false; content: string };

export interface Tool<P = unknown> {
  name: string;
  description: string;
  /** Parsed at the edge; its JSON schema (with descriptions) is what the model sees. */
  parameters: z.ZodType<P>;
  execute(args: P, context: ToolContext): Promise<ToolResult>;
}

/** A tool's refusal or failure, carrying the exact text the model should read. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export const ok = (content: string, media?: ToolMedia[]): ToolResult =>
  media ? { ok: true, content, media } : { ok: true, content };
export const fail = (content: string): ToolResult => ({ ok: false, content });

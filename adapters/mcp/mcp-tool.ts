import * as z from 'zod';
import type { Tool } from '../tools/tool.js';

/** MCP servers describe arguments in JSON Schema; the server validates them, so we accept any object. */
export const mcpArguments = z.record(z.string(), z.unknown());
export type McpArguments = z.infer<typeof mcpArguments>;

/**
 * A server's tool under its model-facing name. `jsonSchema` is the server's own input schema, passed
 * through unchanged: the tool registry sends it to the model instead of one derived from `parameters`.
 */
export interface McpTool extends Tool<McpArguments> {
  server: string;
  /** The tool's name on its server. */
  remoteName: string;
  /** The server's own description, without our notes: what discovery searches. */
  summary: string;
  jsonSchema: Record<string, unknown>;
  /** Hidden until a discovery search unlocks it (`deferred`, or `discovery.enabled`). */
  deferred: boolean;
}

export const POLICY_NOTE = 'External MCP tool: it runs outside the workspace file policy.';

import { z } from 'zod';

/** MCP server connections as the supervisor sees them; tool unlocks live in `tool.ts`. */
export const mcpEvents = {
  'mcp.connected': z.object({ server: z.string(), tools: z.number().int().nonnegative() }),
  'mcp.failed': z.object({ server: z.string(), reason: z.string(), retry_in_ms: z.number().int().nonnegative() }),
} as const;

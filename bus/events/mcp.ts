import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** MCP server connections as the supervisor sees them; tool unlocks live in `tool.ts`. */
export const mcpEvents = {
  'mcp.connected': lazySchema(() => z.object({ server: z.string(), tools: z.number().int().nonnegative() })),
  'mcp.failed': lazySchema(() =>
    z.object({ server: z.string(), reason: z.string(), retry_in_ms: z.number().int().nonnegative() }),
  ),
} as const;

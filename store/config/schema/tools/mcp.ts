import { z } from 'zod';
import { bool, int, oneOf, secret, text } from '../fields.js';

const AUTHORIZATION = 'authorization';

export const mcpServerSchema = z
  .object({
    enabled: bool(),
    deferred: bool().optional(),
    type: oneOf(['stdio', 'sse', 'http']).optional(),
    command: text().optional(),
    args: z.array(text()).default([]),
    env: z.record(z.string(), secret()).default({}),
    env_file: text().optional(),
    inherit_env: bool().default(false),
    url: text().optional(),
    headers: z.record(z.string(), secret()).default({}),
    oauth: z.looseObject({}).optional(),
  })
  .superRefine((server, ctx) => {
    const transport = server.type ?? (server.url ? 'http' : 'stdio');
    if (transport === 'stdio' && !server.command) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'is required for a stdio server (allowed: an executable name or path)' });
    }
    if (transport !== 'stdio' && !server.url) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `is required for a ${transport} server (allowed: an http(s) URL)` });
    }
    if (server.oauth && Object.keys(server.headers).some((h) => h.toLowerCase() === AUTHORIZATION)) {
      ctx.addIssue({
        code: 'custom',
        path: ['oauth'],
        message: 'cannot be combined with an Authorization header (allowed: oauth or headers.Authorization, not both)',
      });
    }
  });

export const discoverySchema = z
  .object({
    enabled: bool().default(false),
    ttl: int(1).default(5),
    max_search_results: int(1).default(5),
    use_bm25: bool().default(true),
    use_regex: bool().default(false),
  })
  .superRefine((discovery, ctx) => {
    if (discovery.enabled && !discovery.use_bm25 && !discovery.use_regex) {
      ctx.addIssue({
        code: 'custom',
        path: ['enabled'],
        message: 'discovery needs a search tool but use_bm25 and use_regex are both false (allowed: use_bm25 or use_regex true)',
      });
    }
  });

export const mcpSchema = z.object({
  enabled: bool().default(false),
  discovery: discoverySchema.prefault({}),
  servers: z.record(z.string(), mcpServerSchema).default({}),
  /** Longer text results are saved as a workspace artifact; the spec leaves the default open. */
  max_inline_text_chars: int(1).default(16000),
});

import * as z from 'zod/mini';
import { bool, int, oneOf, secret, text, textList } from '../fields.js';
import { optional, withDefault } from '../shared.js';

const AUTHORIZATION = 'authorization';

export const mcpServerSchema = z
  .object({
    enabled: bool().check(z.describe('Off, the server is not started')),
    deferred: optional(bool()),
    type: optional(oneOf(['stdio', 'sse', 'http'])).check(
      z.describe('Transport: stdio runs a command, sse and http connect to a URL (default: http with a URL)'),
    ),
    command: optional(text()).check(z.describe('stdio: the program to run')),
    args: withDefault(z.array(text()).check(z.describe('stdio: its arguments')), []),
    env: withDefault(
      z
        .record(z.string(), secret())
        .check(z.describe('stdio: environment variables for the server; values are kept secret')),
      {},
    ),
    env_file: optional(text()),
    inherit_env: withDefault(bool(), false),
    url: optional(text()).check(z.describe('sse, http: the server URL')),
    headers: withDefault(
      z
        .record(z.string(), secret())
        .check(z.describe('sse, http: request headers such as Authorization; values are kept secret')),
      {},
    ),
    oauth: optional(z.looseObject({})),
  })
  .check(
    z.superRefine((server, ctx) => {
      const transport = server.type ?? (server.url ? 'http' : 'stdio');
      if (transport === 'stdio' && !server.command) {
        ctx.addIssue({
          code: 'custom',
          path: ['command'],
          message: 'is required for a stdio server (allowed: an executable name or path)',
        });
      }
      if (transport !== 'stdio' && !server.url) {
        ctx.addIssue({
          code: 'custom',
          path: ['url'],
          message: `is required for a ${transport} server (allowed: an http(s) URL)`,
        });
      }
      if (server.oauth && Object.keys(server.headers).some((h) => h.toLowerCase() === AUTHORIZATION)) {
        ctx.addIssue({
          code: 'custom',
          path: ['oauth'],
          message:
            'cannot be combined with an Authorization header (allowed: oauth or headers.Authorization, not both)',
        });
      }
    }),
  );

export const discoverySchema = z
  .object({
    enabled: withDefault(bool(), false),
    ttl: withDefault(int(1), 5),
    max_search_results: withDefault(int(1), 5),
    use_bm25: withDefault(bool(), true),
    use_regex: withDefault(bool(), false),
  })
  .check(
    z.superRefine((discovery, ctx) => {
      if (discovery.enabled && !discovery.use_bm25 && !discovery.use_regex) {
        ctx.addIssue({
          code: 'custom',
          path: ['enabled'],
          message:
            'discovery needs a search tool but use_bm25 and use_regex ' +
            'are both false (allowed: use_bm25 or use_regex true)',
        });
      }
    }),
  );

export const mcpSchema = z.object({
  enabled: withDefault(bool().check(z.describe('Off, no MCP server is started')), false),
  discovery: z.prefault(discoverySchema, {}),
  servers: withDefault(z.record(z.string(), mcpServerSchema), {}),
  /** Longer text results are saved as a workspace artifact; the spec leaves the default open. */
  max_inline_text_chars: withDefault(int(1), 16000),
  /** MCP tools (by model-facing name `mcp_<server>_<tool>`, globs allowed) the user approves in the chat first. */
  require_approval: withDefault(textList(), []),
  /** How long `tern agent` waits for the servers to connect before its first turn (the gateway never waits). */
  connect_timeout_seconds: withDefault(int(0, 600), 10),
});

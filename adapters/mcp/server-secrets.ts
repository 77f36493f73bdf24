import { proxyCredentials, Redactor } from '../../store/config/index.js';
import type { McpServerConfig } from './options.js';

/** The secrets a server's own config holds: `env` and `headers` values, an OAuth client secret, URL credentials. */
function configuredSecrets(server: McpServerConfig): string[] {
  return [
    ...Object.values(server.env ?? {}),
    ...Object.values(server.headers ?? {}),
    ...(server.oauth?.client_secret ? [server.oauth.client_secret] : []),
    ...(server.url ? proxyCredentials(server.url) : []),
  ];
}

/**
 * Masks what a server's failure says (its error, the stderr it printed) with the secrets it was configured and
 * handed, so `tern mcp test|list`, `mcp.failed` and `/list mcp` show none of them, whoever prints the reason.
 */
export function redactFailure(text: string, server: McpServerConfig, handed: readonly string[] = []): string {
  return new Redactor([...configuredSecrets(server), ...handed]).text(text);
}

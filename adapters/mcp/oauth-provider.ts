import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { readMcpAuth, writeMcpAuth } from '../../store/mcp-tokens.js';
import type { McpOAuthConfig } from './options.js';

/** A server that needs `tern mcp login <name>` before it can connect. */
export class McpLoginRequiredError extends Error {
  readonly code = 'mcp_login_required';
  constructor(readonly server: string) {
    super(`MCP server ${server} needs a login: run \`tern mcp login ${server}\``);
    this.name = 'McpLoginRequiredError';
  }
}

/** Where the browser goes, and what happens with it: the login opens it; the gateway cannot. */
export type AuthorizationRedirect =
  | { kind: 'login'; redirectUrl: string; open(url: URL): Promise<void> }
  | { kind: 'runtime' };

/**
 * The SDK's OAuth client hooks, backed by `$AGENT_HOME/auth/mcp/<server>.json`: the registered client
 * (dynamic registration, else `oauth.client_id`), the tokens (the SDK refreshes them on a 401), and
 * the PKCE verifier and state of a login in progress, which stay in memory only.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  readonly expectedState = randomBytes(16).toString('hex');

  constructor(
    private readonly home: string,
    private readonly server: string,
    private readonly oauth: McpOAuthConfig,
    private readonly redirect: AuthorizationRedirect,
  ) {}

  get redirectUrl(): string {
    if (this.redirect.kind === 'login') return this.redirect.redirectUrl;
    const registered = readMcpAuth(this.home, this.server).client?.redirect_uris;
    return Array.isArray(registered) && typeof registered[0] === 'string' ? registered[0] : 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.oauth.client_name ?? 'Tern',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.oauth.client_secret ? 'client_secret_post' : 'none',
      ...(this.oauth.scope ? { scope: this.oauth.scope } : {}),
    };
  }

  state(): string {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const stored = OAuthClientInformationFullSchema.safeParse(readMcpAuth(this.home, this.server).client);
    if (stored.success) return stored.data;
    if (!this.oauth.client_id) return undefined;
    return {
      client_id: this.oauth.client_id,
      ...(this.oauth.client_secret ? { client_secret: this.oauth.client_secret } : {}),
    };
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    writeMcpAuth(this.home, this.server, { ...readMcpAuth(this.home, this.server), client: { ...client } });
  }

  tokens(): OAuthTokens | undefined {
    const stored = OAuthTokensSchema.safeParse(readMcpAuth(this.home, this.server).tokens);
    return stored.success ? stored.data : undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    writeMcpAuth(this.home, this.server, {
      ...readMcpAuth(this.home, this.server),
      tokens: { ...tokens },
      saved_at: Date.now(),
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (this.redirect.kind === 'runtime') throw new McpLoginRequiredError(this.server);
    await this.redirect.open(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new McpLoginRequiredError(this.server);
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const record = readMcpAuth(this.home, this.server);
    if (scope === 'all' || scope === 'tokens') delete record.tokens;
    if (scope === 'all' || scope === 'client') delete record.client;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    writeMcpAuth(this.home, this.server, record);
  }
}

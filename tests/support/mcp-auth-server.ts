import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

interface PendingCode {
  clientId: string;
  challenge: string;
}

/** An authorization server that approves every request at once, as a user clicking "allow" would. */
class AutoApproveProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, PendingCode>();
  readonly access = new Map<string, string>();
  readonly refresh = new Map<string, string>();
  refreshes = 0;

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state) target.searchParams.set('state', params.state);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    return this.codes.get(code)?.challenge ?? '';
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const pending = this.codes.get(code);
    if (!pending || pending.clientId !== client.client_id) throw new InvalidGrantError('unknown code');
    this.codes.delete(code);
    return this.issue(client.client_id);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    if (this.refresh.get(refreshToken) !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refresh.delete(refreshToken);
    this.refreshes += 1;
    return this.issue(client.client_id);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const clientId = this.access.get(token);
    if (!clientId) throw new InvalidTokenError('the access token is unknown or expired');
    return { token, clientId, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
  }

  private issue(clientId: string): OAuthTokens {
    const tokens = {
      access_token: `at-${randomUUID()}`,
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: `rt-${randomUUID()}`,
    };
    this.access.set(tokens.access_token, clientId);
    this.refresh.set(tokens.refresh_token, clientId);
    return tokens;
  }
}

export interface AuthServer {
  mcpUrl: string;
  provider: AutoApproveProvider;
  /** Every access token stops working, as when they expire: the client must refresh. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

function mcpServerFor(clientId: string): McpServer {
  const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
  server.registerTool('whoami', { description: 'The OAuth client calling' }, async () => ({
    content: [{ type: 'text', text: `client ${clientId}` }],
  }));
  return server;
}

/** An MCP server behind OAuth on 127.0.0.1, built from the SDK's server-side auth helpers. */
export async function startAuthServer(): Promise<AuthServer> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', base);
  const provider = new AutoApproveProvider();
  const app = express();
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.post('/mcp', bearer, express.json(), async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = mcpServerFor(req.auth?.clientId ?? 'unknown');
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  http.on('request', app);
  return {
    mcpUrl: mcpUrl.href,
    provider,
    expireAccessTokens: () => provider.access.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** The "browser": follows the authorization URL to the loopback redirect, as a user approving would. */
export async function followInBrowser(url: URL): Promise<void> {
  const approved = await fetch(url, { redirect: 'manual' });
  const callback = approved.headers.get('location');
  if (!callback) throw new Error(`the authorization server answered ${approved.status} without a redirect`);
  await (await fetch(callback)).text();
}

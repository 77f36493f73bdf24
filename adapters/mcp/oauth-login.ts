import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { fetchOn } from '../http/client.js';
import { StoredOAuthProvider } from './oauth-provider.js';
import { transportOf, type McpServerConfig } from './options.js';

export class McpLoginError extends Error {
  constructor(
    readonly code: 'mcp_login_not_oauth' | 'mcp_login_denied' | 'mcp_login_timeout' | 'mcp_login_failed',
    message: string,
  ) {
    super(message);
    this.name = 'McpLoginError';
  }
}

export interface LoginOptions {
  name: string;
  server: McpServerConfig;
  home: string;
  /** Shows the authorization URL to the user: a browser, a printed line, or in tests a fetch. */
  openBrowser(url: URL): Promise<void>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

type Callback = { kind: 'code'; code: string } | { kind: 'denied'; reason: string };

const CALLBACK_PATH = '/callback';
const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>Tern</title><p>${text}</p>`;

function listenLoopback(expectedState: () => string): {
  server: Server;
  ready: Promise<number>;
  callback: Promise<Callback>;
} {
  let deliver: (result: Callback) => void = () => undefined;
  const callback = new Promise<Callback>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) return void res.writeHead(404).end();
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    const ok = code !== null && url.searchParams.get('state') === expectedState();
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      PAGE(ok ? 'Tern is logged in. You can close this window.' : 'Tern could not log in. Go back to the terminal.'),
    );
    if (ok) deliver({ kind: 'code', code });
    else deliver({ kind: 'denied', reason: error ?? 'the answer did not match this login (state)' });
  });
  const ready = new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return { server, ready, callback };
}

function deadline(ms: number, signal: AbortSignal | undefined): { expired: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new McpLoginError('mcp_login_timeout', `no answer from the browser within ${ms / 1000} s`)),
      ms,
    );
    signal?.addEventListener('abort', () => reject(new McpLoginError('mcp_login_timeout', 'login cancelled')), {
      once: true,
    });
  });
  return { expired, clear: () => clearTimeout(timer) };
}

/**
 * `tern mcp login <name>`: authorization code with PKCE through a loopback redirect on 127.0.0.1 (a
 * random port), registering the client dynamically when the server offers it. Tokens land in
 * `$AGENT_HOME/auth/mcp/<name>.json`.
 */
export async function mcpLogin(options: LoginOptions): Promise<void> {
  const { name, server } = options;
  const kind = transportOf(server);
  if (!server.oauth || !server.url || kind === 'stdio' || kind === undefined) {
    throw new McpLoginError(
      'mcp_login_not_oauth',
      `server ${name} has no oauth block (allowed: a remote sse or http server with oauth: {})`,
    );
  }
  const loopback = listenLoopback(() => provider.expectedState);
  const port = await loopback.ready;
  const provider = new StoredOAuthProvider(options.home, name, server.oauth, {
    kind: 'login',
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    open: options.openBrowser,
  });
  try {
    // A dynamically registered client is bound to the previous login's port: register afresh.
    provider.invalidateCredentials('all');
    const scope = server.oauth.scope;
    const fetchFn = fetchOn({});
    const first = await auth(provider, { serverUrl: server.url, fetchFn, ...(scope ? { scope } : {}) });
    if (first === 'AUTHORIZED') return;
    const wait = deadline(options.timeoutMs ?? 300_000, options.signal);
    const answer = await Promise.race([loopback.callback, wait.expired]).finally(wait.clear);
    if (answer.kind === 'denied')
      throw new McpLoginError('mcp_login_denied', `the authorization server refused: ${answer.reason}`);
    const second = await auth(provider, {
      serverUrl: server.url,
      authorizationCode: answer.code,
      fetchFn,
      ...(scope ? { scope } : {}),
    });
    if (second !== 'AUTHORIZED')
      throw new McpLoginError('mcp_login_failed', 'the authorization server did not issue tokens');
  } finally {
    loopback.server.closeAllConnections();
    loopback.server.close();
  }
}

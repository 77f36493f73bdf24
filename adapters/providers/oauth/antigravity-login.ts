import { createServer, type Server } from 'node:http';
import type { ProviderLogin } from '../../../store/provider-tokens.js';
import { exchangeCode, fetchEmail, fetchModels, fetchProjectId } from './google-api.js';
import { ANTIGRAVITY_CLIENT, authorizeUrl, redirectUri, type GoogleEndpoints } from './google.js';
import { codeFromRedirect, newPkceLogin, OAuthLoginError } from './pkce.js';

/** How the login talks to the user: lines out, one pasted line in, and a browser when there is one. */
export interface LoginTerminal {
  print(line: string): void;
  /** The next line the user types (the redirect URL on a headless box); rejects when input ends. */
  readLine(): Promise<string>;
  /** Opens the URL in a browser; absent on a headless box (`--no-browser`, no display). */
  openBrowser?(url: string): void;
  signal?: AbortSignal;
}

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>Tern</title><p>${text}</p>`;

/** The loopback redirect listener: resolves with the URL the browser was sent back to. */
function listen(port: number): { server: Server; ready: Promise<void>; redirect: Promise<string> } {
  let deliver: (url: string) => void = () => undefined;
  const redirect = new Promise<string>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://localhost:${port}`);
    if (url.pathname !== ANTIGRAVITY_CLIENT.callbackPath) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE('Tern received the sign-in. Go back to the terminal.'));
    deliver(url.toString());
  });
  const ready = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, ready, redirect };
}

function timeout(ms: number, signal: AbortSignal | undefined): { expired: Promise<never>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    const fail = (why: string) => reject(new OAuthLoginError('oauth_timeout', why));
    timer = setTimeout(() => fail(`no sign-in within ${ms / 1000} s`), ms);
    signal?.addEventListener('abort', () => fail('login cancelled'), { once: true });
  });
  expired.catch(() => undefined);
  return { expired, clear: () => clearTimeout(timer) };
}

/**
 * `tern auth login --provider antigravity`: Google OAuth 2.0 authorization code with PKCE. With a browser the
 * redirect comes back to a listener on the registered loopback port; on a headless box (and meanwhile with a
 * browser too) the user pastes the URL the browser ended on. Then the account's e-mail, project and models.
 */
export async function antigravityLogin(
  endpoints: GoogleEndpoints,
  terminal: LoginTerminal,
  timeoutMs = 300_000,
): Promise<ProviderLogin> {
  const pkce = newPkceLogin();
  const redirect = redirectUri(ANTIGRAVITY_CLIENT.port);
  const url = authorizeUrl(endpoints, pkce.challenge, pkce.state, redirect);
  let listener = terminal.openBrowser ? listen(ANTIGRAVITY_CLIENT.port) : undefined;
  const wait = timeout(timeoutMs, terminal.signal);
  try {
    try {
      await listener?.ready;
    } catch (error) {
      // The client's redirect is registered on this one port: when it is taken, the paste-back still works.
      terminal.print(`Port ${ANTIGRAVITY_CLIENT.port} is taken (${(error as Error).message}); paste the URL instead.`);
      listener = undefined;
    }
    terminal.print(`Open this URL to sign in with Google:\n\n${url}\n`);
    if (terminal.openBrowser) terminal.openBrowser(url);
    terminal.print(
      listener
        ? 'Waiting for the browser. If it cannot reach this machine, paste the URL it ends on here.'
        : `After signing in the browser ends on ${redirect}?… (a page that does not load): paste that URL here.`,
    );
    const pasted = terminal.readLine();
    // Input that ends after the browser answered is no failure of this login.
    pasted.catch(() => undefined);
    const answer = await Promise.race([...(listener ? [listener.redirect] : []), pasted, wait.expired]);
    const code = codeFromRedirect(answer, pkce.state);
    const tokens = await exchangeCode(endpoints, code, pkce.verifier, redirect);
    const email = await fetchEmail(endpoints, tokens.access_token).catch(() => undefined);
    const project = await fetchProjectId(endpoints, tokens.access_token).catch(() => undefined);
    const models = project ? await fetchModels(endpoints, tokens.access_token, project).catch(() => []) : [];
    return {
      ...tokens,
      ...(email ? { email } : {}),
      ...(project ? { project_id: project } : {}),
      ...(models.length > 0 ? { models } : {}),
    };
  } finally {
    wait.clear();
    listener?.server.closeAllConnections();
    listener?.server.close();
  }
}

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLauncher, type RunningLauncher } from '../../adapters/launcher/server.js';

export const PASSWORD = 'correct horse battery';

/** A fresh AGENT_HOME in a temp dir. */
export function tempHome(): { home: string; remove(): void } {
  const home = mkdtempSync(join(tmpdir(), 'tern-'));
  return { home, remove: () => rmSync(home, { recursive: true, force: true }) };
}

export function start(home: string): Promise<RunningLauncher> {
  return startLauncher({ home, host: '127.0.0.1', port: 0 });
}

export type Reply = { status: number; headers: Headers; body: unknown; text: string; cookie?: string };

export type Call = {
  method?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  cookie?: string;
};

/** One request with fetch (redirects not followed); `json` sends a JSON body with its Content-Type. */
export async function call(launcher: RunningLauncher, path: string, options: Call = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  if (options.cookie) headers.cookie = options.cookie;
  const response = await fetch(`${launcher.url}${path}`, {
    method: options.method ?? (options.json !== undefined || options.body !== undefined ? 'POST' : 'GET'),
    headers,
    body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    redirect: 'manual',
  });
  const text = await response.text();
  const setCookie = response.headers.get('set-cookie') ?? undefined;
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
    cookie: setCookie?.split(';', 1)[0],
  };
}

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** The first-run setup body, with the setup token the launcher printed. */
export function setupBody(launcher: RunningLauncher, password = PASSWORD): Record<string, string> {
  return { password, confirm: password, setup_token: launcher.setupToken };
}

/** Sets the password on a fresh launcher and returns the session cookie the setup answer carries. */
export async function setUp(launcher: RunningLauncher, password = PASSWORD): Promise<string> {
  const reply = await call(launcher, '/api/auth/setup', { json: setupBody(launcher, password) });
  if (reply.status !== 200 || !reply.cookie) throw new Error(`setup failed: ${reply.status} ${reply.text}`);
  return reply.cookie;
}

export async function logIn(launcher: RunningLauncher, password = PASSWORD): Promise<string> {
  const reply = await call(launcher, '/api/auth/login', { json: { password } });
  if (reply.status !== 200 || !reply.cookie) throw new Error(`login failed: ${reply.status} ${reply.text}`);
  return reply.cookie;
}

/**
 * A request sent byte for byte as given: fetch would resolve `..` and `//` before sending, which is exactly
 * what path-trick tests must avoid. `localAddress` picks another loopback address as the client IP.
 */
export function rawCall(
  launcher: RunningLauncher,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<{ status: number; location?: string; body: string }> {
  const { hostname, port } = new URL(launcher.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.localAddress,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

// A loopback fake of Google's OAuth endpoints and the Cloud Code Assist service, speaking their wire formats.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface GoogleFake {
  url: string;
  requests: FakeRequest[];
  /** The PKCE challenge of the login in progress, as the authorize URL carried it. */
  challenge?: string;
  /** Access tokens the service accepts; a refresh adds the one it issues. */
  valid: Set<string>;
  close(): Promise<void>;
}

export const ISSUED = { code: 'auth-code-1', access: 'ya29.access-first-0001', refresh: '1//refresh-0001' };
export const REFRESHED = 'ya29.access-refreshed-0002';
export const PROJECT = 'proj-tern-123';

const sse = (response: unknown) => `data: ${JSON.stringify({ response })}\r\n\r\n`;

export async function startGoogleFake(): Promise<GoogleFake> {
  const fake: GoogleFake = {
    url: '',
    requests: [],
    valid: new Set([ISSUED.access]),
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      fake.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const path = (req.url ?? '').split('?')[0];
      if (path === '/token') {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') === 'authorization_code') {
          const verifier = form.get('code_verifier') ?? '';
          const ok =
            form.get('code') === ISSUED.code &&
            createHash('sha256').update(verifier).digest('base64url') === fake.challenge;
          return ok
            ? json(200, {
                access_token: ISSUED.access,
                refresh_token: ISSUED.refresh,
                expires_in: 3599,
                token_type: 'Bearer',
              })
            : json(400, { error: 'invalid_grant', error_description: 'Bad Request' });
        }
        if (form.get('grant_type') === 'refresh_token' && form.get('refresh_token') === ISSUED.refresh) {
          fake.valid.add(REFRESHED);
          return json(200, { access_token: REFRESHED, expires_in: 3599, token_type: 'Bearer' });
        }
        return json(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      }
      if (path === '/o/oauth2/v2/auth') {
        // The consent screen, passed at once: back to the app's redirect with a code and the login's state.
        const asked = new URL(req.url ?? '', fake.url).searchParams;
        fake.challenge = asked.get('code_challenge') ?? '';
        const back = new URL(asked.get('redirect_uri') ?? '');
        back.search = new URLSearchParams({ state: asked.get('state') ?? '', code: ISSUED.code }).toString();
        res.writeHead(302, { location: back.toString() });
        res.end();
        return;
      }
      if (!fake.valid.has(bearer)) {
        return json(401, {
          error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
        });
      }
      if (path === '/oauth2/v1/userinfo') return json(200, { id: '1', email: 'ada@example.com', verified_email: true });
      if (path === '/v1internal:loadCodeAssist')
        return json(200, { currentTier: { id: 'free-tier' }, cloudaicompanionProject: PROJECT });
      if (path === '/v1internal:fetchAvailableModels')
        return json(200, {
          models: {
            'gemini-3-flash': { displayName: 'Gemini 3 Flash', quotaInfo: { remainingFraction: 1 } },
            'claude-sonnet-4-5': { displayName: 'Claude Sonnet 4.5', quotaInfo: { remainingFraction: 1 } },
          },
        });
      if (path === '/v1internal:streamGenerateContent') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hello from ' }] } }] }));
        res.end(
          sse({
            candidates: [{ content: { role: 'model', parts: [{ text: 'Cloud Code' }] }, finishReason: 'STOP' }],
            usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 4, totalTokenCount: 16 },
          }),
        );
        return;
      }
      json(404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

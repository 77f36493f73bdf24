import * as z from 'zod';
import { sendForText } from '../../http/client.js';
import { ProviderError } from '../errors.js';
import { ANTIGRAVITY_CLIENT, type GoogleEndpoints } from './google.js';
import { OAuthLoginError } from './pkce.js';

const tokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().optional(),
});

/** What a token endpoint gave: the access token, maybe a new refresh token, and when the access token ends. */
export interface IssuedTokens {
  access_token: string;
  refresh_token?: string;
  expires_at?: number;
}

const CLIENT_HEADERS = {
  'user-agent': 'antigravity',
  'x-goog-api-client': 'google-cloud-sdk vscode_cloudshelleditor/0.1',
};
const METADATA = { ideType: 'IDE_UNSPECIFIED', platform: 'PLATFORM_UNSPECIFIED', pluginType: 'GEMINI' };

async function tokenRequest(endpoints: GoogleEndpoints, fields: Record<string, string>): Promise<IssuedTokens> {
  const body = new URLSearchParams({
    ...fields,
    client_id: ANTIGRAVITY_CLIENT.id,
    client_secret: ANTIGRAVITY_CLIENT.secret,
  }).toString();
  const answer = await sendForText(
    {},
    {
      url: endpoints.tokenUrl,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    },
  );
  let parsed: z.infer<typeof tokenAnswer> | undefined;
  try {
    parsed = tokenAnswer.parse(JSON.parse(answer.text));
  } catch {
    parsed = undefined;
  }
  if (answer.status !== 200 || parsed === undefined) {
    // The body of a refused token request names the reason (`invalid_grant`); it carries no token.
    throw new OAuthLoginError(
      'oauth_token_failed',
      `the token endpoint answered ${answer.status}: ${answer.text.slice(0, 200)}`,
    );
  }
  return {
    access_token: parsed.access_token,
    ...(parsed.refresh_token ? { refresh_token: parsed.refresh_token } : {}),
    ...(parsed.expires_in !== undefined ? { expires_at: Date.now() + parsed.expires_in * 1000 } : {}),
  };
}

export function exchangeCode(
  endpoints: GoogleEndpoints,
  code: string,
  verifier: string,
  redirect: string,
): Promise<IssuedTokens> {
  return tokenRequest(endpoints, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: redirect,
  });
}

export function refreshTokens(endpoints: GoogleEndpoints, refreshToken: string): Promise<IssuedTokens> {
  return tokenRequest(endpoints, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    scope: ANTIGRAVITY_CLIENT.scopes,
  });
}

async function getJson(url: string, accessToken: string, body?: unknown): Promise<unknown> {
  const answer = await sendForText(
    {},
    {
      url,
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        ...CLIENT_HEADERS,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
  );
  if (answer.status !== 200)
    throw new ProviderError({ code: 'unknown', message: `${new URL(url).pathname} answered ${answer.status}` });
  return JSON.parse(answer.text) as unknown;
}

/** The signed-in account's e-mail address, for `tern auth status`; none when Google does not say. */
export async function fetchEmail(endpoints: GoogleEndpoints, accessToken: string): Promise<string | undefined> {
  const info = z
    .looseObject({ email: z.string().optional() })
    .safeParse(await getJson(endpoints.userInfoUrl, accessToken));
  return info.success ? info.data.email : undefined;
}

/** The account's Cloud Code Assist project (`cloudaicompanionProject`), which every request names. */
export async function fetchProjectId(endpoints: GoogleEndpoints, accessToken: string): Promise<string | undefined> {
  const answer = await getJson(`${endpoints.cloudCodeBase}/v1internal:loadCodeAssist`, accessToken, {
    metadata: METADATA,
  });
  const parsed = z.looseObject({ cloudaicompanionProject: z.string().optional() }).safeParse(answer);
  return parsed.success && parsed.data.cloudaicompanionProject ? parsed.data.cloudaicompanionProject : undefined;
}

/** The model ids the account may call, sorted. */
export async function fetchModels(endpoints: GoogleEndpoints, accessToken: string, project: string): Promise<string[]> {
  const answer = await getJson(`${endpoints.cloudCodeBase}/v1internal:fetchAvailableModels`, accessToken, { project });
  const parsed = z.looseObject({ models: z.record(z.string(), z.unknown()).optional() }).safeParse(answer);
  return parsed.success ? Object.keys(parsed.data.models ?? {}).sort() : [];
}

export { CLIENT_HEADERS, METADATA };

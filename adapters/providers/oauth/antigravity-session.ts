import { readProviderLogin, writeProviderLogin, type ProviderLogin } from '../../../store/provider-tokens.js';
import { ProviderError } from '../errors.js';
import { fetchProjectId, refreshTokens } from './google-api.js';
import type { GoogleEndpoints } from './google.js';
import { OAuthLoginError } from './pkce.js';

export const ANTIGRAVITY = 'antigravity';
/** Refreshed this long before it ends, so a request never leaves with a token that dies on the way. */
const REFRESH_MARGIN_MS = 5 * 60_000;

export interface AntigravityAccess {
  accessToken: string;
  project: string;
}

const notLoggedIn = (why: string) =>
  new ProviderError({ code: 'auth', message: `${why}: run \`tern auth login --provider antigravity\`` });

async function refreshed(home: string, endpoints: GoogleEndpoints, login: ProviderLogin): Promise<ProviderLogin> {
  if (login.refresh_token === undefined)
    throw notLoggedIn('the antigravity login has expired and has no refresh token');
  let issued: Awaited<ReturnType<typeof refreshTokens>>;
  try {
    issued = await refreshTokens(endpoints, login.refresh_token);
  } catch (error) {
    if (error instanceof OAuthLoginError)
      throw notLoggedIn(`the antigravity token could not be refreshed (${error.message})`);
    throw error;
  }
  const next: ProviderLogin = { ...login, ...issued };
  if (issued.expires_at === undefined) delete next.expires_at;
  writeProviderLogin(home, ANTIGRAVITY, next);
  return next;
}

/**
 * The stored login's access token, refreshed when it ends within `REFRESH_MARGIN_MS` (or when `force`, after the
 * service refused it), and its Cloud Code project, fetched once and kept.
 */
export async function antigravityAccess(
  home: string,
  endpoints: GoogleEndpoints,
  force = false,
): Promise<AntigravityAccess> {
  let login = readProviderLogin(home, ANTIGRAVITY);
  if (login === undefined) throw notLoggedIn('not logged in to antigravity');
  const ending = login.expires_at !== undefined && login.expires_at - Date.now() < REFRESH_MARGIN_MS;
  if (force || ending) login = await refreshed(home, endpoints, login);
  if (login.project_id === undefined) {
    const project = await fetchProjectId(endpoints, login.access_token);
    if (project === undefined) throw notLoggedIn('Google named no Cloud Code Assist project for this account');
    login = { ...login, project_id: project };
    writeProviderLogin(home, ANTIGRAVITY, login);
  }
  return { accessToken: login.access_token, project: login.project_id! };
}

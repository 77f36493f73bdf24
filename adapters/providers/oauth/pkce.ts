import { createHash, randomBytes } from 'node:crypto';

/** One login's secrets: the PKCE verifier stays here, its challenge and the state travel in the browser. */
export interface PkceLogin {
  verifier: string;
  challenge: string;
  state: string;
}

export class OAuthLoginError extends Error {
  constructor(
    readonly code: 'oauth_state_mismatch' | 'oauth_denied' | 'oauth_no_code' | 'oauth_token_failed' | 'oauth_timeout',
    message: string,
  ) {
    super(message);
    this.name = 'OAuthLoginError';
  }
}

export function newPkceLogin(): PkceLogin {
  const verifier = randomBytes(32).toString('base64url');
  return {
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
    state: randomBytes(32).toString('hex'),
  };
}

/**
 * The authorization code from the redirect URL the browser landed on (the loopback listener's request, or the URL a
 * user pasted from a headless box), after checking it answers this login: a URL from another login, or a forged
 * one, carries another state.
 */
export function codeFromRedirect(redirect: string, expectedState: string): string {
  let url: URL;
  try {
    url = new URL(redirect.trim(), 'http://localhost');
  } catch {
    throw new OAuthLoginError('oauth_no_code', 'that is not the redirect URL (paste the whole address bar)');
  }
  const error = url.searchParams.get('error');
  if (error !== null) throw new OAuthLoginError('oauth_denied', `the sign-in was refused: ${error}`);
  const code = url.searchParams.get('code');
  if (code === null || code === '')
    throw new OAuthLoginError('oauth_no_code', 'the redirect URL has no code (paste the whole address bar)');
  if (url.searchParams.get('state') !== expectedState)
    throw new OAuthLoginError('oauth_state_mismatch', 'the redirect URL belongs to another login (state differs)');
  return code;
}

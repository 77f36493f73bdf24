import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AuthStorage } from '../../store/auth-db.js';
import { firstIssue, LoginBody, passwordProblem, SetupBody } from './auth-bodies.js';
import type { Credentials } from './credentials.js';
import { sendError } from './http-error.js';
import { loginLimit, type LoginLimits } from './login-limit.js';
import type { SetupToken } from './setup-token.js';
import { endSession, isAuthenticated, SESSION_COOKIE, sessionCookieOptions, startSession } from './session.js';

export type AuthStatus = { initialized: boolean; authenticated: boolean; storage?: 'launcher-config.json' };

const ALREADY_SET = 'a password is already set; sign in to change it';
const TOKEN_HINT = 'open the setup link tern-launcher printed when it started (/launcher-setup?setup_token=…)';

type Refusal = { status: number; code: string; message: string };

/** Why a first-run setup is refused for its token, if it is. */
function tokenProblem(given: string | undefined, token: SetupToken): Refusal | undefined {
  if (given === undefined || given.trim() === '') {
    return { status: 400, code: 'setup_token_required', message: `setup_token is required: ${TOKEN_HINT}` };
  }
  if (!token.matches(given)) {
    const message = `setup_token is not the one of this launcher: ${TOKEN_HINT}`;
    return { status: 403, code: 'setup_token_mismatch', message };
  }
  return undefined;
}

// Judged by the header alone (not req.is, which needs a body), so a bodiless JSON logout is accepted.
function requireJson(req: Request, res: Response, next: NextFunction): void {
  const type = req.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  if (type === 'application/json') return next();
  sendError(res, 400, 'json_required', 'send the body as JSON with Content-Type: application/json');
}

function isEmptyObject(body: unknown): boolean {
  return (
    body === undefined ||
    (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
  );
}

export interface AuthParts {
  credentials: Credentials;
  storage: AuthStorage;
  setupToken: SetupToken;
  limits: LoginLimits;
}

/**
 * `/api/auth/*`: status, first-run setup (with the launcher's setup token) or a password change when signed in,
 * login (throttled per client) and logout.
 */
export function authRoutes({ credentials, storage, setupToken, limits }: AuthParts): Router {
  const router = express.Router();
  router.use(express.json({ limit: '16kb' }));

  const status = async (req: Request): Promise<AuthStatus> => ({
    initialized: await credentials.initialized(),
    authenticated: isAuthenticated(req),
    ...(storage.file === 'launcher-config.json' ? { storage: storage.file } : {}),
  });

  router.get('/status', async (req, res) => {
    res.json(await status(req));
  });

  router.post('/setup', requireJson, async (req, res) => {
    const body = SetupBody.safeParse(req.body);
    if (!body.success) return sendError(res, 400, 'invalid_body', firstIssue(body.error));
    const signedIn = isAuthenticated(req);
    if (!signedIn && (await credentials.initialized())) return sendError(res, 401, 'unauthenticated', ALREADY_SET);
    const refused = signedIn ? undefined : tokenProblem(body.data.setup_token, setupToken);
    if (refused) return sendError(res, refused.status, refused.code, refused.message);
    const problem = passwordProblem(body.data.password, body.data.confirm);
    if (problem) return sendError(res, 400, problem.code, problem.message);
    const outcome = await credentials.set(body.data.password, signedIn ? 'replace' : 'first_run');
    if (outcome === 'already_initialized') return sendError(res, 401, 'unauthenticated', ALREADY_SET);
    await startSession(req);
    res.json(await status(req));
  });

  router.post('/login', loginLimit(limits), requireJson, async (req, res) => {
    const body = LoginBody.safeParse(req.body);
    if (!body.success) return sendError(res, 400, 'invalid_body', firstIssue(body.error));
    const check = await credentials.check(body.data.password);
    if (check === 'not_initialized')
      return sendError(res, 409, 'not_initialized', 'no password is set yet; create one at /launcher-setup');
    if (check === 'wrong_password') return sendError(res, 401, 'wrong_password', 'wrong password');
    await startSession(req);
    res.json(await status(req));
  });

  // POST with a JSON body only: a cross-site form or link can neither send that nor trigger a GET logout.
  router.post('/logout', requireJson, async (req, res) => {
    if (!isEmptyObject(req.body)) return sendError(res, 400, 'invalid_body', 'logout takes an empty body or {}');
    await endSession(req);
    res.clearCookie(SESSION_COOKIE, sessionCookieOptions);
    res.json(await status(req));
  });

  return router;
}

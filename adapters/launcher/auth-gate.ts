import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { checkPath, isApiPath } from './canonical-path.js';
import type { Credentials } from './credentials.js';
import { sendError } from './http-error.js';
import { isAuthenticated } from './session.js';

export const LOGIN_PAGE = '/launcher-login';
export const SETUP_PAGE = '/launcher-setup';

const PUBLIC_PATHS = new Set([
  '/api/auth/status',
  '/api/auth/setup',
  '/api/auth/login',
  '/api/auth/logout',
  LOGIN_PAGE,
  SETUP_PAGE,
]);
const PUBLIC_PREFIX = '/auth/';

function isPublic(path: string): boolean {
  return PUBLIC_PATHS.has(path) || path.startsWith(PUBLIC_PREFIX);
}

/**
 * Deny by default: without a session only the exact public paths pass, and only when sent in canonical form;
 * the decision uses the canonical path, so `/assets/../api/x`, `//api/x` or `%2e%2e` reach the same verdict
 * as `/api/x`. No token of any kind (query, bearer header, environment) is ever consulted.
 */
export function authGate(credentials: Credentials): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const checked = checkPath(req.url);
    if (checked.kind === 'malformed')
      return sendError(res, 400, 'bad_path', 'the request path is not valid percent-encoding');
    if (isAuthenticated(req)) {
      if (checked.canonical) return next();
      return sendError(
        res,
        400,
        'bad_path',
        'the request path must not contain dot segments, repeated slashes or encoded separators',
      );
    }
    if (checked.canonical && isPublic(checked.path)) return next();
    if (isApiPath(checked.path)) return sendError(res, 401, 'unauthenticated', 'sign in at /launcher-login first');
    res.redirect(302, (await credentials.initialized()) ? LOGIN_PAGE : SETUP_PAGE);
  };
}

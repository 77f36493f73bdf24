import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { sendError } from './http-error.js';

export const LOGIN_ATTEMPTS_PER_MINUTE = 10;

/**
 * Every login attempt counts, right or wrong, per client IP. `trust proxy` is off, so the IP is the socket's
 * peer and an `X-Forwarded-For` header cannot spread attempts over invented addresses.
 */
export function loginLimit(): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: LOGIN_ATTEMPTS_PER_MINUTE,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    validate: { xForwardedForHeader: false },
    handler: (_req, res) => sendError(res, 429, 'rate_limited', 'too many login attempts'),
  });
}

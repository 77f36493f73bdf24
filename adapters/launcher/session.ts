import type { Request, RequestHandler } from 'express';
import session from 'express-session';
import type { SessionRecords } from '../../store/launcher/session-records.js';
import { RecordSessionStore, SESSION_LIFETIME_MS } from './session-store.js';

export const SESSION_COOKIE = 'tern_session';

declare module 'express-session' {
  interface SessionData {
    authenticated: boolean;
  }
}

export const sessionCookieOptions = { httpOnly: true, sameSite: 'strict', path: '/' } as const;

/**
 * Sessions expire 7 days after the last request (rolling), so a dashboard in daily use never logs out while an
 * abandoned one does. `proxy: false` with `secure: 'auto'` marks the cookie Secure exactly when the connection
 * itself is TLS; forwarded headers are never trusted.
 */
export function sessionMiddleware(records: SessionRecords, secret: string): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    secret,
    store: new RecordSessionStore(records),
    resave: false,
    saveUninitialized: false,
    rolling: true,
    proxy: false,
    cookie: { ...sessionCookieOptions, secure: 'auto', maxAge: SESSION_LIFETIME_MS },
  });
}

export function isAuthenticated(req: Request): boolean {
  return req.session?.authenticated === true;
}

/** A fresh session id on every sign-in, so a session id planted before login is worthless after it. */
export function startSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) =>
    req.session.regenerate((error: unknown) => {
      if (error) return reject(error);
      req.session.authenticated = true;
      req.session.save((saveError: unknown) => (saveError ? reject(saveError) : resolve()));
    }),
  );
}

export function endSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) =>
    req.session ? req.session.destroy((error: unknown) => (error ? reject(error) : resolve())) : resolve(),
  );
}

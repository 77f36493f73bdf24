import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { sendError } from './http-error.js';

/** The Origin header names this server (scheme http or https, same host and port as the Host header). */
export function isSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (!origin || !host) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host.toLowerCase();
  } catch {
    return false;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A second line behind SameSite=Strict: a browser's state-changing request from another site is refused. */
export function originGuard(req: Request, res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method) || req.headers.origin === undefined || isSameOrigin(req)) return next();
  sendError(res, 403, 'forbidden_origin', 'requests from another origin are not accepted');
}

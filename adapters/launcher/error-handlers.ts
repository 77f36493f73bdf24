import type { NextFunction, Request, Response } from 'express';
import { checkPath, isApiPath } from './canonical-path.js';
import { sendError } from './http-error.js';

type BodyParserError = { type?: unknown };

export function notFound(req: Request, res: Response): void {
  const checked = checkPath(req.url);
  if (checked.kind === 'valid' && !isApiPath(checked.path)) {
    res.status(404).type('text').send('not found');
    return;
  }
  sendError(res, 404, 'not_found', `no route ${req.method} ${checked.kind === 'valid' ? checked.path : ''}`.trim());
}

export function errorHandler(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(error);
  const type = (error as BodyParserError).type;
  if (type === 'entity.parse.failed') return sendError(res, 400, 'invalid_json', 'the body is not valid JSON');
  if (type === 'entity.too.large') return sendError(res, 413, 'body_too_large', 'the body is larger than 16 KiB');
  process.stderr.write(`tern-launcher: ${(error as Error)?.stack ?? String(error)}\n`);
  sendError(res, 500, 'internal', 'the launcher failed to handle this request; see its log');
}

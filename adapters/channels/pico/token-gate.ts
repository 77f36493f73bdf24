import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const PREFIX = 'token.';

/** Compared by digest, so the time it takes tells nothing of how much of the token was right. */
function same(given: string, token: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/** The `token.<value>` subprotocol a browser names the token with (it cannot set headers); the server echoes it. */
export function tokenProtocol(protocols: Iterable<string>, token: string): string | undefined {
  for (const protocol of protocols)
    if (protocol.startsWith(PREFIX) && same(protocol.slice(PREFIX.length), token)) return protocol;
  return undefined;
}

export interface TokenGateSettings {
  token: string;
  allowTokenQuery: boolean;
  /** Empty: any origin. */
  allowOrigins: readonly string[];
}

export type Admission = { ok: true } | { ok: false; status: 401 | 403; reason: string };

/**
 * Whether a client may open the socket, as the peer runtime decides it: the token as `Authorization: Bearer`, as the
 * subprotocol `token.<value>`, or (only when allowed) as `?token=`; a browser's Origin among `allow_origins`.
 */
export function admit(req: IncomingMessage, settings: TokenGateSettings): Admission {
  const origin = req.headers.origin;
  const origins = settings.allowOrigins;
  if (origin && origins.length > 0 && !origins.some((allowed) => allowed === '*' || allowed === origin))
    return { ok: false, status: 403, reason: `origin ${origin} is not in allow_origins` };
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined && same(bearer, settings.token)) return { ok: true };
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  if (tokenProtocol(protocols, settings.token)) return { ok: true };
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  if (settings.allowTokenQuery && query !== null && same(query, settings.token)) return { ok: true };
  return { ok: false, status: 401, reason: 'unauthorized' };
}

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Request, RequestHandler } from 'express';
import { sendError } from './http-error.js';

/** Attempts a client may make before it has to wait. */
export const FREE_LOGIN_ATTEMPTS = 5;
/** The first wait; each further attempt doubles it, up to `MAX_LOGIN_WAIT_MS`. */
export const FIRST_LOGIN_WAIT_MS = 1_000;
export const MAX_LOGIN_WAIT_MS = 60_000;
/** A client quiet for this long starts afresh. */
export const LOGIN_RECORD_TTL_MS = 15 * 60_000;
/** More clients than this and the ones quiet longest are forgotten first, so invented addresses cannot fill memory. */
const MAX_CLIENTS = 10_000;

/** Written by `tern-launcher --reset-login-limits`; a running launcher forgets every client when it changes. */
export const LOGIN_RESET_FILE = 'launcher-login-reset';

type Client = { attempts: number; waitUntil: number; last: number };

export type LoginVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

function readReset(home: string): string | undefined {
  try {
    return readFileSync(join(home, LOGIN_RESET_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

/** Asks every launcher on this AGENT_HOME, running now or started later, to forget the clients it throttles. */
export function resetLoginLimits(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(join(home, LOGIN_RESET_FILE), randomBytes(16).toString('hex'), { mode: 0o600 });
}

/**
 * Login attempts per client IP with exponential backoff: the first `FREE_LOGIN_ATTEMPTS` pass, then each attempt
 * makes the next wait twice as long (1 s, 2 s, 4 s … at most 60 s). A guesser is slowed to one try a minute, while
 * the owner, who shares 127.0.0.1 with every local process, can sign in again at most a minute after the guessing
 * stops; a right password clears the client. An attempt counts when it starts (parallel guesses cannot slip through
 * before the first answer). The limits live in memory; `resetLoginLimits` clears them from another process.
 */
export class LoginLimits {
  private readonly clients = new Map<string, Client>();
  private resetSeen: string | undefined;

  constructor(
    private readonly home: string,
    private readonly now: () => number = Date.now,
  ) {
    this.resetSeen = readReset(home);
  }

  /** Counts an attempt of this client now, unless it must wait first. */
  attempt(client: string): LoginVerdict {
    this.applyReset();
    const now = this.now();
    let record = this.clients.get(client);
    if (record && now - record.last > LOGIN_RECORD_TTL_MS) record = undefined;
    if (record && now < record.waitUntil) return { allowed: false, retryAfterMs: record.waitUntil - now };
    const attempts = (record?.attempts ?? 0) + 1;
    const over = attempts - FREE_LOGIN_ATTEMPTS;
    const waitUntil = over > 0 ? now + Math.min(FIRST_LOGIN_WAIT_MS * 2 ** (over - 1), MAX_LOGIN_WAIT_MS) : 0;
    this.clients.delete(client);
    this.clients.set(client, { attempts, waitUntil, last: now });
    if (this.clients.size > MAX_CLIENTS) this.clients.delete(this.clients.keys().next().value!);
    return { allowed: true };
  }

  succeeded(client: string): void {
    this.clients.delete(client);
  }

  private applyReset(): void {
    const reset = readReset(this.home);
    if (reset === this.resetSeen) return;
    this.resetSeen = reset;
    this.clients.clear();
  }
}

/** The client as the limits know it: the socket's peer (`trust proxy` is off, so `X-Forwarded-For` cannot pick it). */
const clientOf = (req: Request): string => req.socket.remoteAddress ?? 'unknown';

/** 429 with `Retry-After` for a client that must wait; a 200 answer clears the client. */
export function loginLimit(limits: LoginLimits): RequestHandler {
  return (req, res, next) => {
    const client = clientOf(req);
    const verdict = limits.attempt(client);
    if (!verdict.allowed) {
      res.set('Retry-After', String(Math.ceil(verdict.retryAfterMs / 1000)));
      return sendError(res, 429, 'rate_limited', 'too many login attempts');
    }
    res.on('finish', () => {
      if (res.statusCode === 200) limits.succeeded(client);
    });
    next();
  };
}

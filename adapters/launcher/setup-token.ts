import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The environment variable that presets the token, for scripts that set the password themselves. */
export const SETUP_TOKEN_VARIABLE = 'AGENT_LAUNCHER_SETUP_TOKEN';
export const MIN_SETUP_TOKEN_LENGTH = 16;

/** Thrown for a preset token too short to be secret; the message names the variable. */
export class SetupTokenError extends Error {
  readonly code = 'setup_token_too_short';
  constructor(length: number) {
    super(`${SETUP_TOKEN_VARIABLE} must have at least ${MIN_SETUP_TOKEN_LENGTH} characters (it has ${length})`);
    this.name = 'SetupTokenError';
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * The one-time secret that first-run setup needs besides the password: anyone who can reach the port (another
 * local user, a sandboxed command) could otherwise claim an unclaimed launcher. Only the person who started the
 * launcher sees it, printed at start and in the URL the browser opens. Random per start unless preset.
 */
export class SetupToken {
  readonly value: string;

  constructor(preset?: string) {
    const given = preset?.trim();
    if (given !== undefined && given.length < MIN_SETUP_TOKEN_LENGTH) throw new SetupTokenError(given.length);
    this.value = given ?? randomBytes(24).toString('base64url');
  }

  /** Compared by digest in constant time, so the answer's timing says nothing about how much of it matched. */
  matches(candidate: string): boolean {
    return timingSafeEqual(digest(candidate.trim()), digest(this.value));
  }
}

import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { readLauncherConfig, updateLauncherConfig } from './launcher/launcher-config.js';
import { makeTreePrivate } from './private-files.js';
import {
  levelSessionRecords,
  memorySessionRecords,
  pruneSessions,
  type SessionRecord,
  type SessionRecords,
} from './launcher/session-records.js';

export const AUTH_DB_DIR = 'launcher-auth.db';

/** Where the password hash lives: the database, or the config file when the database cannot be opened. */
export type AuthStorage = { file: 'launcher-auth.db' } | { file: 'launcher-config.json'; reason: string };

export interface AuthStore {
  readonly storage: AuthStorage;
  /** Sessions persist in the database; in the config-file fallback they last only as long as the process. */
  readonly sessions: SessionRecords;
  /** Signs session cookies; kept in the database so cookies stay valid across restarts. */
  readonly sessionSecret: string;
  passwordHash(): Promise<string | undefined>;
  setPasswordHash(hash: string): Promise<void>;
  /** The `launcher_token` of older releases, as found in `launcher-config.json` (any JSON value). */
  legacyToken(): unknown;
  dropLegacyToken(): void;
  close(): Promise<void>;
}

const PASSWORD_HASH = 'password_hash';
const SESSION_SECRET = 'session_secret';

function withoutHash({ password_hash: _dropped, ...rest }: Record<string, unknown>) {
  return rest;
}

function configFileParts(home: string) {
  return {
    legacyToken: () => readLauncherConfig(home).launcher_token,
    dropLegacyToken() {
      if (readLauncherConfig(home).launcher_token === undefined) return;
      updateLauncherConfig(home, ({ launcher_token: _dropped, ...rest }) => rest);
    },
  };
}

async function openDatabase(home: string): Promise<AuthStore> {
  const db = new Level<string, string>(join(home, AUTH_DB_DIR), { valueEncoding: 'utf8' });
  await db.open();
  try {
    // It holds the cookie secret and live session ids: with them anyone could sign a valid cookie.
    makeTreePrivate(join(home, AUTH_DB_DIR));
    const sessionLevel = db.sublevel<string, SessionRecord>('sessions', { valueEncoding: 'json' });
    await pruneSessions(sessionLevel);
    const secret = (await db.get(SESSION_SECRET)) ?? randomBytes(32).toString('hex');
    await db.put(SESSION_SECRET, secret);
    return {
      storage: { file: 'launcher-auth.db' },
      sessions: levelSessionRecords(sessionLevel),
      sessionSecret: secret,
      // A hash written to the config file during an earlier fallback still counts until a new one is set.
      passwordHash: async () => (await db.get(PASSWORD_HASH)) ?? readLauncherConfig(home).password_hash,
      async setPasswordHash(hash) {
        await db.put(PASSWORD_HASH, hash);
        if (readLauncherConfig(home).password_hash !== undefined) updateLauncherConfig(home, withoutHash);
      },
      ...configFileParts(home),
      close: () => db.close(),
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

function openConfigFile(home: string, reason: string): AuthStore {
  return {
    storage: { file: 'launcher-config.json', reason },
    sessions: memorySessionRecords(),
    sessionSecret: randomBytes(32).toString('hex'),
    passwordHash: async () => readLauncherConfig(home).password_hash,
    async setPasswordHash(hash) {
      updateLauncherConfig(home, (config) => ({ ...config, password_hash: hash }));
    },
    ...configFileParts(home),
    close: async () => {},
  };
}

function openFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  return String(cause?.code ?? cause?.message ?? (error as Error).message);
}

/**
 * Opens `<home>/launcher-auth.db`. When it cannot be opened (another process holds it, or a file is in its
 * place), the password hash goes to `launcher-config.json` instead and sessions are kept in memory.
 */
export async function openAuthStore(home: string): Promise<AuthStore> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  try {
    return await openDatabase(home);
  } catch (error) {
    return openConfigFile(home, openFailure(error));
  }
}

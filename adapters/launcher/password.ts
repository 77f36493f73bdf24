import * as scryptKdf from 'scrypt-kdf';

// scrypt-kdf 4 exports only a default class at run time, though its typings declare named functions.
const { kdf, verify } = (scryptKdf as unknown as { default: typeof scryptKdf }).default;

// logN 15 (32 MiB, about 0.1 s here): slow enough to resist guessing from a stolen hash, quick enough for login.
const PARAMS = { logN: 15, r: 8, p: 1 };

/** The scrypt-kdf key as base64, the form stored in `launcher-auth.db` or `launcher-config.json`. */
export async function hashPassword(password: string): Promise<string> {
  return Buffer.from(await kdf(password, PARAMS)).toString('base64');
}

export function verifyPassword(hash: string, password: string): Promise<boolean> {
  return verify(Buffer.from(hash, 'base64'), password);
}

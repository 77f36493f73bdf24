import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from './config/files.js';

/** One provider's sign-in (`tern auth login`): the tokens and what the vendor told about the account. */
export const providerLoginSchema = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  /** Milliseconds since the epoch when `access_token` stops working; absent, the vendor gave no expiry. */
  expires_at: z.number().optional(),
  email: z.string().optional(),
  /** Google Cloud Code Assist's project for this account (`loadCodeAssist`). */
  project_id: z.string().optional(),
  /** Model ids the account may use, as the vendor listed them at login. */
  models: z.array(z.string()).optional(),
});
export type ProviderLogin = z.infer<typeof providerLoginSchema>;

const fileSchema = z.object({ providers: z.record(z.string(), providerLoginSchema) });
type TokenFile = z.infer<typeof fileSchema>;

/** The token file is not what we wrote: the fix is to log in again, never to guess. */
export class ProviderTokenFileError extends Error {
  readonly code = 'provider_tokens_unreadable';
  constructor(
    readonly file: string,
    why: string,
  ) {
    super(`${file}: ${why}; run \`tern auth login --provider NAME\` again`);
    this.name = 'ProviderTokenFileError';
  }
}

/** `$AGENT_HOME/auth/providers.json`: under `auth/`, which file tools can neither read nor list. */
export function providerTokensPath(home: string): string {
  return join(home, 'auth', 'providers.json');
}

function readFile(home: string): TokenFile {
  const file = providerTokensPath(home);
  if (!existsSync(file)) return { providers: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new ProviderTokenFileError(file, 'not valid JSON');
  }
  const checked = fileSchema.safeParse(parsed);
  if (!checked.success) throw new ProviderTokenFileError(file, 'not a provider token file');
  return checked.data;
}

function writeFile(home: string, content: TokenFile): void {
  const dir = join(home, 'auth');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  // Owner-only (0600), written to a temporary file and renamed: a crash never leaves half a token file.
  writeFileAtomic(providerTokensPath(home), `${JSON.stringify(content, null, 2)}\n`);
}

export function readProviderLogins(home: string): Record<string, ProviderLogin> {
  return readFile(home).providers;
}

export function readProviderLogin(home: string, provider: string): ProviderLogin | undefined {
  const logins = readFile(home).providers;
  return Object.hasOwn(logins, provider) ? logins[provider] : undefined;
}

/** Saves one provider's login; a damaged file is replaced, since logging in is how the user repairs it. */
export function writeProviderLogin(home: string, provider: string, login: ProviderLogin): void {
  let content: TokenFile;
  try {
    content = readFile(home);
  } catch (error) {
    if (!(error instanceof ProviderTokenFileError)) throw error;
    content = { providers: {} };
  }
  content.providers[provider] = login;
  writeFile(home, content);
}

/** Whether there was a login to remove. */
export function removeProviderLogin(home: string, provider: string): boolean {
  const content = readFile(home);
  if (!Object.hasOwn(content.providers, provider)) return false;
  delete content.providers[provider];
  writeFile(home, content);
  return true;
}

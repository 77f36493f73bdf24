import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../config/files.js';

export const LAUNCHER_CONFIG_FILE = 'launcher-config.json';

// Loose: the file may hold other launcher settings, which every write must keep.
const LauncherConfigSchema = z.looseObject({
  password_hash: z.string().min(1).optional(),
  launcher_token: z.unknown().optional(),
});
export type LauncherConfig = z.infer<typeof LauncherConfigSchema>;

export class LauncherConfigError extends Error {
  readonly code = 'launcher_config_invalid';
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path} is not valid launcher config (${why}); fix or remove the file`);
    this.name = 'LauncherConfigError';
  }
}

export function launcherConfigPath(home: string): string {
  return join(home, LAUNCHER_CONFIG_FILE);
}

export function readLauncherConfig(home: string): LauncherConfig {
  const path = launcherConfigPath(home);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LauncherConfigError(path, (error as Error).message);
  }
  const parsed = LauncherConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new LauncherConfigError(path, `${issue?.path.join('.') || 'top level'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Read, change, write back (mode 0600, since it may hold the password hash). */
export function updateLauncherConfig(home: string, change: (config: LauncherConfig) => LauncherConfig): void {
  const next = change(readLauncherConfig(home));
  writeFileAtomic(launcherConfigPath(home), `${JSON.stringify(next, null, 2)}\n`);
}

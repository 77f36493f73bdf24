import { readFileSync } from 'node:fs';
import type { CommandContext } from '../command.js';
import { print } from '../command.js';

export function version(): string {
  const pkg = new URL('../../../package.json', import.meta.url);
  // dist/ sits one level deeper than the sources.
  const candidates = [pkg, new URL('../../../../package.json', import.meta.url)];
  for (const url of candidates) {
    try {
      const parsed = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'tern' && parsed.version) return parsed.version;
    } catch {}
  }
  return 'unknown';
}

export async function run({ stdout, json }: CommandContext): Promise<number> {
  print(stdout, json ? JSON.stringify({ ok: true, version: version() }) : `tern ${version()}`);
  return 0;
}

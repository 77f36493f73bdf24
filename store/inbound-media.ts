import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * Saves a file a user sent through a channel (a voice message) under `<workspace>/media/inbound/` and
 * returns its path. The name is reduced to its last segment and safe characters, so a platform-chosen
 * name can never point outside that folder.
 */
export function saveInboundMedia(workspace: string, messageId: string, name: string, data: Buffer): string {
  const dir = join(workspace, 'media', 'inbound');
  mkdirSync(dir, { recursive: true });
  const safe = `${messageId}-${basename(name)}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const path = join(dir, safe);
  writeFileSync(path, data, { mode: 0o600 });
  return path;
}

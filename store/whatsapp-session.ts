import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A WhatsApp linked device's session folder: its files hold the keys of the user's account, so the folder is 0700 and
 * every file in it 0600, made so at start and after every save of the library.
 */
export function ownerOnlySession(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isFile()) chmodSync(path, 0o600);
  }
}

/** The pairing QR code for the dashboard: `qr.json` in the session folder (0600), replaced by each new code. */
export function writePairingQr(dir: string, dataUrl: string, at: Date): void {
  ownerOnlySession(dir);
  writeFileSync(join(dir, 'qr.json'), JSON.stringify({ data_url: dataUrl, at: at.toISOString() }), { mode: 0o600 });
}

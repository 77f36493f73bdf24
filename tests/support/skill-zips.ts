// Zip archives for skill install tests, built in memory with fflate: well-formed skills and the hostile kinds
// (names that climb out, links, devices, bombs).
import { zipSync, type Zippable } from 'fflate';

const encoder = new TextEncoder();

export type ZipEntry = string | Uint8Array | { data: string | Uint8Array; mode?: number };

/** Unix file-type bits as a zip's external attributes carry them (`os` 3 = Unix). */
export const MODE = {
  file: 0o100644,
  executable: 0o100755,
  symlink: 0o120777,
  fifo: 0o010644,
  charDevice: 0o020644,
} as const;

export function zipOf(entries: Record<string, ZipEntry>): Uint8Array {
  const files: Zippable = {};
  for (const [name, entry] of Object.entries(entries)) {
    const raw = typeof entry === 'object' && !(entry instanceof Uint8Array) ? entry : { data: entry };
    const data = typeof raw.data === 'string' ? encoder.encode(raw.data) : raw.data;
    files[name] = raw.mode === undefined ? data : [data, { os: 3, attrs: (raw.mode << 16) >>> 0 }];
  }
  return zipSync(files, { level: 6 });
}

export function skillMd(name: string, description: string, body = 'Do the thing step by step.'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;
}

/** A skill at the archive's top: SKILL.md plus a script. */
export function skillZip(name: string, description: string, extra: Record<string, ZipEntry> = {}): Uint8Array {
  return zipOf({
    'SKILL.md': skillMd(name, description),
    'scripts/run.sh': { data: '#!/bin/sh\necho ok\n', mode: MODE.executable },
    ...extra,
  });
}

/** `bytes` of zeros next to a SKILL.md: a few hundred KB that unpack to `bytes`. */
export function bombZip(bytes: number): Uint8Array {
  return zipSync({
    'SKILL.md': encoder.encode(skillMd('bomb', 'unpacks big')),
    'filler.bin': [new Uint8Array(bytes), { level: 9 }],
  });
}

// Zip archives for skill install tests, built in memory with fflate: well-formed skills and the hostile kinds
// (names that climb out, links, devices, bombs).
import { crc32, deflateRawSync } from 'node:zlib';
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

/**
 * `bytes` of zeros next to a SKILL.md: about a thousandth of `bytes` that unpacks to `bytes`. Deflated by Node's zlib
 * and laid out as a zip here: fflate's deflate in JavaScript took seconds of CPU for the 100 MB a bomb needs.
 */
export function bombZip(bytes: number): Uint8Array {
  return deflatedZip({ 'SKILL.md': Buffer.from(skillMd('bomb', 'unpacks big')), 'filler.bin': Buffer.alloc(bytes) });
}

/** A zip of deflated regular files (PKWARE APPNOTE 4.3: local headers, the central directory, its end record). */
function deflatedZip(files: Record<string, Buffer>): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const packed = deflateRawSync(data, { level: 9 });
    const nameBytes = Buffer.from(name);
    // Version 2.0, no flags, deflate, 1980-01-01 00:00, then the CRC and both sizes.
    const common = Buffer.alloc(26);
    common.writeUInt16LE(20, 0);
    common.writeUInt16LE(8, 4);
    common.writeUInt16LE(0x21, 8);
    common.writeUInt32LE(crc32(data), 10);
    common.writeUInt32LE(packed.length, 14);
    common.writeUInt32LE(data.length, 18);
    common.writeUInt16LE(nameBytes.length, 22);
    const local = Buffer.concat([u32(0x04034b50), common, nameBytes, packed]);
    // Made by version 2.0; then no comment, disk 0, no attributes (a regular file), and where its local header is.
    const tail = Buffer.alloc(14);
    tail.writeUInt32LE(offset, 10);
    centrals.push(Buffer.concat([u32(0x02014b50), Buffer.from([20, 0]), common, tail, nameBytes]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length, 8);
  end.writeUInt16LE(centrals.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const u32 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};

/**
 * Several scripts' V8 cached data in one file, so a start reads one file and a run replaces it with one rename:
 * a 4-byte header length, a JSON header of `[part name, byte length]` pairs, then the data in that order.
 */
export function packParts(parts: ReadonlyMap<string, Buffer>): Buffer {
  const header = Buffer.from(JSON.stringify([...parts].map(([name, data]) => [name, data.length])));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  return Buffer.concat([length, header, ...parts.values()]);
}

/** Anything that is not a whole packed file reads as no cache at all: V8 checks each part's data again. */
export function unpackParts(file: Buffer | undefined): Map<string, Buffer> {
  const parts = new Map<string, Buffer>();
  if (file === undefined || file.length < 4) return parts;
  const headerEnd = 4 + file.readUInt32LE(0);
  const header = parseHeader(file.subarray(4, headerEnd).toString());
  if (header === undefined) return parts;
  let offset = headerEnd;
  for (const [name, length] of header) {
    if (offset + length > file.length) return new Map();
    parts.set(name, file.subarray(offset, offset + length));
    offset += length;
  }
  return offset === file.length ? parts : new Map();
}

function parseHeader(text: string): Array<[string, number]> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every(isEntry) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isEntry(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Number.isInteger(value[1]) && value[1] >= 0;
}

import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';

const TAIL_BYTES = 512 * 1024;

/** The last lines of a text file (at most the last 512 KiB of it); none when it does not exist. */
export function tailLines(path: string, max: number): string[] {
  if (!existsSync(path)) return [];
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '');
    if (length < size) lines.shift();
    return lines.slice(-max);
  } finally {
    closeSync(fd);
  }
}

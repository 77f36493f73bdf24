// A small filesystem of its own for a test (tmpfs, mounted as root), and a file that fills it to the last byte.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the filesystem refuses another byte; resolves with its size. */
  fill(): number;
  /** Removes the filler: the space is back. */
  free(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `megabytes` on `dir` (which must exist). */
export function mountSmallDisk(dir: string, megabytes: number): SmallDisk {
  if (process.getuid?.() !== 0) throw new Error('this test mounts a tmpfs (`mount -t tmpfs`), which needs root');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  return {
    dir,
    fill: () => {
      const fd = openSync(filler, 'a');
      let size = 0;
      try {
        for (const chunk of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
          const bytes = Buffer.alloc(chunk, 0x2e);
          for (;;) {
            try {
              size += writeSync(fd, bytes);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return size;
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => {
      execFileSync('umount', ['-l', dir]);
    },
  };
}

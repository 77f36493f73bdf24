import { close, ftruncate, read, readFile, write } from 'node:fs';
import { promisify } from 'node:util';

/**
 * Reads and writes on a descriptor `openChecked` returned, off the main thread. The descriptor is what was checked;
 * reopening its path would undo that.
 */
export const readAt = promisify(read);
export const readWhole = promisify(readFile) as (fd: number) => Promise<Buffer>;
export const truncate = promisify(ftruncate);
export const closeDescriptor = promisify(close);
type Written = Promise<{ bytesWritten: number }>;
type WriteAt = (fd: number, bytes: Buffer, offset: number, length: number, at: number | null) => Written;
const writeAt = promisify(write) as WriteAt;

/** Every byte of `bytes` at `position`, or at the end for a descriptor opened to append (`null`). */
export async function writeAll(fd: number, bytes: Buffer, position: number | null): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const at = position === null ? null : position + done;
    const { bytesWritten } = await writeAt(fd, bytes, done, bytes.length - done, at);
    done += bytesWritten;
  }
}

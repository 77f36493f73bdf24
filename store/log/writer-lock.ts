import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LogError } from './errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One writer per log: `seq` is assigned in the writer's memory, so a second writer would reuse numbers.
 * The lock is a pid file; a file left by a process that died (kill -9) is taken over.
 */
export function acquireWriterLock(dir: string): () => void {
  const path = join(dir, 'writer.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new LogError('log_locked', `the event log in ${dir} is being written by process ${holder}`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new LogError('log_locked', `could not take the writer lock of ${dir}`);
}

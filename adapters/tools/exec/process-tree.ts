import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Without a PID namespace, the processes one command started are found by a variable every one of them
 * inherits: `setsid`, `nohup` and `disown` leave the process group, but not the environment. A child that
 * clears its environment (`env -i …`) is not found; only isolation closes that gap.
 */
export const MARKER_VARIABLE = 'TERN_EXEC_RUN';

export function newMarker(): string {
  return randomBytes(12).toString('hex');
}

function marked(pid: string, needle: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(needle);
  } catch {
    // Gone already, or not ours to read.
    return false;
  }
}

/** SIGKILLs every process carrying `marker`; a fork loop may add more while it runs, so it looks until none is left. */
export function killMarked(marker: string): void {
  const needle = Buffer.from(`${MARKER_VARIABLE}=${marker}\0`);
  for (let round = 0; round < 20; round++) {
    let pids: string[];
    try {
      pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && name !== String(process.pid));
    } catch {
      return;
    }
    const found = pids.filter((pid) => marked(pid, needle));
    if (found.length === 0) return;
    for (const pid of found) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Ended on its own meanwhile.
      }
    }
  }
}

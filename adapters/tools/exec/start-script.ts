import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** `tools.exec.limits`, in the units the kernel counts. */
export interface ExecLimits {
  processes: number;
  memoryBytes: number;
  fileSizeBytes: number;
}

/**
 * Closes every descriptor above stderr. bash, because dash reads `19>&-` as `1` and `9>&-`; `/dev/fd` lists
 * what is open in the process that runs the loop (a descriptor the listing itself used is already closed, and
 * closing it again does nothing).
 */
const CLOSE_INHERITED = 'for f in /dev/fd/*; do n=${f##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done';

/** Sets a limit, soft and hard; where the hard limit is already lower, `ulimit` refuses and the lower one stays. */
const cap = (flag: string, value: number) => `ulimit -S -H ${flag} ${value} 2>/dev/null`;

/**
 * The script that starts every command: `bash -c SCRIPT sh COMMAND`. It runs in the process that becomes the
 * command, so what it closes and limits is closed and limited for everything the command starts; it ends by
 * replacing itself with `sh -c COMMAND`, as the command ran before. Limits (processes per user, private memory
 * per process, bytes per file) are set inside the sandbox only.
 */
export function startScript(limits?: ExecLimits): string {
  const parts = [CLOSE_INHERITED];
  if (limits) {
    // bash's `ulimit` counts -d in KiB and -f in blocks of 1 KiB outside POSIX mode (an inherited POSIXLY_CORRECT
    // would make -f count 512-byte blocks).
    parts.push(
      'set +o posix',
      cap('-u', limits.processes),
      cap('-d', kib(limits.memoryBytes)),
      cap('-f', kib(limits.fileSizeBytes)),
    );
  }
  parts.push('exec sh -c "$1"');
  return parts.join('; ');
}

const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));

const found = new Map<string, boolean>();

/** Whether `program` is on this process's PATH (bash is missing on a bare Alpine). */
export function onPath(program: string): boolean {
  let known = found.get(program);
  if (known === undefined) {
    known = (process.env.PATH ?? '').split(delimiter).some((dir) => {
      try {
        accessSync(join(dir, program), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    found.set(program, known);
  }
  return known;
}

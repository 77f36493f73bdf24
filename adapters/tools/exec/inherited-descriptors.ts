import { openSync, readdirSync, readFileSync } from 'node:fs';
import type { StdioOptions } from 'node:child_process';

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` prints a descriptor's flags (octal). */
const CLOSE_ON_EXEC = 0o2000000;

/**
 * Descriptors of this process that a child would inherit: Node opens its own files close-on-exec, but native
 * code does not always (lmdb opens the event log's `data.mdb` read-write without it, leveldb its journal and
 * manifest). Empty where `/proc` is not there to say.
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  return names.map(Number).filter((fd) => {
    if (fd < 3) return false;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      return flags !== undefined && (parseInt(flags, 8) & CLOSE_ON_EXEC) === 0;
    } catch {
      // Closed meanwhile (the listing's own descriptor among them).
      return false;
    }
  });
}

let devNull: number | undefined;

/**
 * `spawn`'s `stdio` for a program that must not inherit any of this process's files: `given` (stdin, stdout,
 * stderr and the program's own descriptors from 3 up), then `/dev/null` at the number of every other descriptor
 * the child would inherit. libuv dup2()s each entry onto its index in the child before `execve`, so what was the
 * log's handle there is `/dev/null`; the sandbox's start script then closes everything above 2.
 */
export function sealedStdio(given: StdioOptions & unknown[]): StdioOptions {
  const leaked = inheritableDescriptors().filter((fd) => fd >= given.length);
  if (leaked.length === 0) return given;
  devNull ??= openSync('/dev/null', 'r');
  const stdio: unknown[] = [...given];
  for (let fd = given.length; fd <= Math.max(...leaked); fd++) stdio.push(leaked.includes(fd) ? devNull : 'ignore');
  return stdio as StdioOptions;
}

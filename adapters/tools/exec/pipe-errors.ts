import type { ChildProcess } from 'node:child_process';

const unheard = (): void => {};

/**
 * Hears the errors of a child's pipes, which its exit already tells: a write to a child that is gone fails with
 * EPIPE, and a read from a pipe it closed with our bytes unread (bubblewrap's seccomp program or block byte, when a
 * timeout or a cancelled turn killed it first) with ECONNRESET. Unheard, either `error` would end this process.
 */
export function hearPipeErrors(child: ChildProcess): void {
  for (const pipe of child.stdio) pipe?.on('error', unheard);
}

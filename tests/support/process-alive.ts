/** Whether a process with this pid still runs (signal 0 asks the kernel without signalling it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms) one thread has used, from its schedstat (ns; /proc/<pid>/stat counts ticks); 0 once it is gone. */
function threadCpuMs(pid: number, task: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return 0;
  }
}

/**
 * CPU time (ms) of a process's main thread alone: for Node, its event loop. The rest of `treeCpuMs` is other threads
 * (V8's compiler and garbage collector, libuv's pool) and child processes, which can run on another core.
 */
export function mainThreadCpuMs(pid: number): number {
  return threadCpuMs(pid, String(pid));
}

/** CPU time (ms) one process's threads have used. */
function ownCpuMs(pid: number): number {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  return tasks.reduce((sum, task) => sum + threadCpuMs(pid, task), 0);
}

/** The pids whose parent is `pid`, read from /proc (Linux only). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of stat is the parent's pid; the command name (field 2) may hold spaces, so read after its `)`.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  return children;
}

/** CPU time (ms) a process and every process below it use now (a gateway and the processes it started). */
export function treeCpuMs(pid: number): number {
  return ownCpuMs(pid) + childrenOf(pid).reduce((sum, child) => sum + treeCpuMs(child), 0);
}

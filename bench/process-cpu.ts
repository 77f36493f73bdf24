import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms) one process's threads have used, from each thread's schedstat (ns; /proc/<pid>/stat counts ticks). */
function ownCpuMs(pid: number): number {
  let ns = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return ns / 1e6;
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

import { readdirSync, readFileSync } from 'node:fs';

/**
 * One field (ms) of a thread's schedstat (ns; /proc/<pid>/stat counts ticks): 0 the CPU time it used, 1 the time it
 * was ready to run but waited for a CPU. 0 once the thread is gone.
 */
function schedstatMs(pid: number, task: string, field: 0 | 1): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[field]) / 1e6;
  } catch {
    return 0;
  }
}

/** CPU time (ms) one thread has used. */
function threadCpuMs(pid: number, task: string): number {
  return schedstatMs(pid, task, 0);
}

/**
 * How long (ms) a process's main thread was ready to run but waited for a CPU: on a machine shared with other work,
 * the event loop's time lost to it, which no change to the process can win back.
 */
export function mainThreadWaitMs(pid: number): number {
  return schedstatMs(pid, String(pid), 1);
}

/** CPU time (ms) every process of the machine has used, all cores together (/proc/stat, in clock ticks of 10 ms). */
export function machineCpuMs(): number {
  const [, user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .split(/\s+/)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq!) * 10;
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

import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Node's flags that let `hungReport` ask a process what keeps it running: on SIGUSR2 it writes its diagnostic report
 * (its JavaScript stack and every libuv handle) into `dir`.
 */
export const reportFlags = (dir: string): string[] => ['--report-on-signal', `--report-directory=${dir}`];

interface Report {
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: Array<Record<string, unknown> & { type: string; is_active?: boolean; is_referenced?: boolean }>;
}

/** How long a process started with `reportFlags` may take to write its report: it waits for its event loop. */
const REPORT_MS = 5_000;

/**
 * What a process that would not end (started with `reportFlags(dir)`) was doing: the handles that keep its event
 * loop alive and its JavaScript stack, from the report it writes on SIGUSR2. A process whose report does not come
 * has its event loop blocked (the report is written from it), and that is what this says.
 */
export async function hungReport(child: ChildProcess, dir: string, waitMs = REPORT_MS): Promise<string> {
  // Node writes no report into a folder that is not there.
  mkdirSync(dir, { recursive: true });
  const before = new Set(reportsIn(dir));
  child.kill('SIGUSR2');
  const deadline = Date.now() + waitMs;
  for (;;) {
    const file = reportsIn(dir).find((name) => !before.has(name));
    const report = file === undefined ? undefined : parsed(join(dir, file));
    if (report) return describe(report);
    if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null)
      return `no diagnostic report within ${waitMs} ms of SIGUSR2: its event loop was blocked, or it ended`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function reportsIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith('report.') && name.endsWith('.json')) : [];
}

/** The report once it is written whole (Node writes it in pieces). */
function parsed(file: string): Report | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Report;
  } catch {
    return undefined;
  }
}

function describe(report: Report): string {
  // The handles that hold the loop open; an unreferenced one (a timer `unref`ed) would let the process end.
  const holding = (report.libuv ?? [])
    .filter((handle) => handle.is_active && handle.is_referenced)
    .map(
      ({ type, is_active: _active, is_referenced: _referenced, address: _address, ...details }) =>
        `${type} ${JSON.stringify(details)}`,
    );
  const stack = report.javascriptStack?.stack?.map((line) => line.trim()) ?? [];
  // A process waiting on its event loop (for a promise that never settles, say) has no stack to show.
  const running = stack.length > 0 ? `${report.javascriptStack?.message ?? ''} ${stack.join(' | ')}` : 'none (idle)';
  return [
    `handles keeping it alive: ${holding.length > 0 ? holding.join('; ') : 'none'}`,
    `JavaScript stack: ${running}`,
  ].join('\n');
}

/** Timers behind an interface, so tests drive heartbeat and restarts with a clock of their own. */
export interface Scheduler {
  now(): number;
  after(ms: number, run: () => void): { cancel(): void };
}

export const realScheduler: Scheduler = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

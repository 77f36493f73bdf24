import type { ActorOptions, AnyActorLogic } from 'xstate';

/** The clock an actor system schedules its delayed transitions with (xstate's `Clock`). */
export type ActorClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** Timers behind an interface, so tests drive heartbeat, cron and restarts with a clock of their own. */
export interface Scheduler {
  now(): number;
  after(ms: number, run: () => void): { cancel(): void };
}

/** The longest delay `setTimeout` keeps (about 24.8 days); a longer one would fire at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export const realScheduler: Scheduler = {
  now: () => Date.now(),
  after: (ms, run) => {
    // Long periods (a compaction every 600 hours) wait in steps, each within what a timer can hold.
    const due = Date.now() + ms;
    let timer: NodeJS.Timeout;
    const wait = (left: number) => {
      timer = setTimeout(
        () => (left > LONGEST_TIMER_MS ? wait(due - Date.now()) : run()),
        Math.min(left, LONGEST_TIMER_MS),
      );
      timer.unref();
    };
    wait(ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

/** The scheduler as the clock of an actor system, so a machine's delayed transitions (`after`) follow it. */
export function clockOf(scheduler: Scheduler): ActorClock {
  return {
    setTimeout: (fn, ms) => scheduler.after(ms, fn),
    clearTimeout: (timer: { cancel(): void } | undefined) => timer?.cancel(),
  };
}

import type { ActorOptions, AnyActorLogic } from 'xstate';

/** The clock an actor system schedules its delayed transitions with (xstate's `Clock`). */
export type ActorClock = NonNullable<ActorOptions<AnyActorLogic>['clock']>;

/** Timers behind an interface, so tests drive heartbeat, cron and restarts with a clock of their own. */
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

/** The scheduler as the clock of an actor system, so a machine's delayed transitions (`after`) follow it. */
export function clockOf(scheduler: Scheduler): ActorClock {
  return {
    setTimeout: (fn, ms) => scheduler.after(ms, fn),
    clearTimeout: (timer: { cancel(): void } | undefined) => timer?.cancel(),
  };
}

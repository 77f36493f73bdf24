// A clock the test moves by hand: timers fire only when `advance` passes their time.
import type { Scheduler } from '../../actors/scheduler.js';

interface Timer {
  at: number;
  run: () => void;
  cancelled: boolean;
}

export class ManualClock implements Scheduler {
  private timers: Timer[] = [];

  /** `time`: where the clock starts, in ms since the epoch (a real date where files' times are compared with it). */
  constructor(private time = 0) {}

  now(): number {
    return this.time;
  }

  after(ms: number, run: () => void): { cancel(): void } {
    const timer: Timer = { at: this.time + ms, run, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Delays (from now) of the timers still waiting. */
  pending(): number[] {
    return this.timers.filter((t) => !t.cancelled).map((t) => t.at - this.time);
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => !t.cancelled && t.at <= this.time);
    this.timers = this.timers.filter((t) => !due.includes(t));
    due.forEach((t) => t.run());
  }
}

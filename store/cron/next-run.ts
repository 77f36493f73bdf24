import type { CronSchedule } from './job.js';
import { parseCronExpression, type CronExpression } from './expression.js';
import { instantOf, wallClock } from './zoned-time.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
// A 29 February that is also a given weekday recurs within 28 years; nine years covers every day-of-month.
const SEARCH_DAYS = 366 * 9;
// No daylight-saving change moves the clock by more than this, so earlier wall times can never be after `now`.
const LARGEST_SHIFT = 3 * HOUR;

function dayMatches(expression: CronExpression, day: Date): boolean {
  if (!expression.months.has(day.getUTCMonth() + 1)) return false;
  const byMonthDay = expression.daysOfMonth.has(day.getUTCDate());
  const byWeekDay = expression.daysOfWeek.has(day.getUTCDay());
  return expression.dayFields === 'both-restricted' ? byMonthDay || byWeekDay : byMonthDay && byWeekDay;
}

const ascending = (values: ReadonlySet<number>) => [...values].sort((a, b) => a - b);

/** The first whole minute strictly after `after` (ms) whose wall-clock time in `zone` matches. */
export function nextCronTime(expression: CronExpression, after: number, zone: string): number | undefined {
  const afterWall = wallClock(after, zone);
  const firstDay = Math.floor(afterWall / DAY) * DAY;
  const hours = ascending(expression.hours);
  const minutes = ascending(expression.minutes);
  for (let day = firstDay; day < firstDay + SEARCH_DAYS * DAY; day += DAY) {
    if (!dayMatches(expression, new Date(day))) continue;
    for (const hour of hours) {
      for (const minute of minutes) {
        const wall = day + hour * HOUR + minute * MINUTE;
        if (wall + LARGEST_SHIFT < afterWall) continue;
        const instant = instantOf(wall, zone);
        if (instant !== undefined && instant > after) return instant;
      }
    }
  }
  return undefined;
}

/**
 * When a schedule runs next, strictly after `now`; undefined when it never will (a one-shot whose time
 * has passed). `every` counts from `now`, so a run that took long does not make the next one come early.
 */
export function nextRunAfter(schedule: CronSchedule, now: Date): Date | undefined {
  switch (schedule.kind) {
    case 'every':
      return new Date(now.getTime() + schedule.seconds * 1000);
    case 'at': {
      const at = new Date(schedule.at);
      return at.getTime() > now.getTime() ? at : undefined;
    }
    case 'cron': {
      const next = nextCronTime(parseCronExpression(schedule.expr), now.getTime(), schedule.tz ?? 'UTC');
      return next === undefined ? undefined : new Date(next);
    }
  }
}

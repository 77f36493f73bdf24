/** `web_search` `range`: the past day, week, month or year. */
export type SearchRange = 'd' | 'w' | 'm' | 'y';

/** Months back from `now`, keeping the day but never spilling past the end of the shorter month (Mar 31 → Feb 28). */
function monthsBefore(now: Date, months: number): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay)));
}

/** The calendar date (UTC, `YYYY-MM-DD`) one range before `now`. */
export function dateBefore(range: SearchRange, now: Date): string {
  const days = range === 'd' ? 1 : range === 'w' ? 7 : 0;
  const date = days > 0 ? new Date(now.getTime() - days * 86_400_000) : monthsBefore(now, range === 'm' ? 1 : 12);
  return date.toISOString().slice(0, 10);
}

export const RANGE_WORDS: Record<SearchRange, 'day' | 'week' | 'month' | 'year'> = {
  d: 'day',
  w: 'week',
  m: 'month',
  y: 'year',
};

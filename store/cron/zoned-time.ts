/** Thrown for a `tz` that is not an IANA time zone known to this Node build. */
export class TimeZoneError extends Error {
  readonly code = 'bad_time_zone';
  constructor(readonly zone: string) {
    super(`tz "${zone}" is not a known IANA time zone (for example UTC, Europe/Paris, America/New_York)`);
    this.name = 'TimeZoneError';
  }
}

const DAY = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let found = formats.get(zone);
  if (!found) {
    try {
      found = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new TimeZoneError(zone);
    }
    formats.set(zone, found);
  }
  return found;
}

export function checkTimeZone(zone: string): void {
  format(zone);
}

/**
 * Wall-clock time in `zone` at `instant`, as milliseconds of a UTC date with the same fields
 * (so that the calendar arithmetic below can use the UTC methods of Date).
 */
export function wallClock(instant: number, zone: string): number {
  if (zone === 'UTC') return instant;
  const parts: Record<string, number> = {};
  for (const part of format(zone).formatToParts(new Date(instant))) parts[part.type] = Number(part.value);
  const wholeSeconds = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wholeSeconds + (instant - Math.floor(instant / 1000) * 1000);
}

/**
 * The instant at which `zone` shows the wall-clock time `wall`; undefined when that time is skipped by a
 * daylight-saving jump. A time shown twice (the hour repeated in autumn) gives its first occurrence.
 */
export function instantOf(wall: number, zone: string): number | undefined {
  if (zone === 'UTC') return wall;
  // The offsets a day either side are the only two a daylight-saving change can be between.
  const offsets = [wall - DAY, wall + DAY].map((instant) => wallClock(instant, zone) - instant);
  const exact = offsets.map((offset) => wall - offset).filter((instant) => wallClock(instant, zone) === wall);
  return exact.length > 0 ? Math.min(...exact) : undefined;
}

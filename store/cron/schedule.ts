import { Cron } from 'croner';
import * as z from 'zod';

const SYNTAX =
  'allowed: minute hour day-of-month month day-of-week, each *, a value, a list a,b, a ' +
  'range a-b or a step */n, a-b/n or a/n; or @hourly, @daily, @weekly, @monthly, @yearly';

/** A `cron` schedule croner cannot read, or one that never comes round. */
export class CronExpressionError extends Error {
  readonly code = 'bad_cron_expression';
  constructor(message: string) {
    super(message);
    this.name = 'CronExpressionError';
  }
}

/** A `tz` that is not an IANA time zone this Node knows. */
export class TimeZoneError extends Error {
  readonly code = 'bad_time_zone';
  constructor(readonly zone: string) {
    super(`tz "${zone}" is not a known IANA time zone (for example UTC, Europe/Paris, America/New_York)`);
    this.name = 'TimeZoneError';
  }
}

export function checkTimeZone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new TimeZoneError(zone);
  }
}

const isoTime = z.iso.datetime({ offset: true });
const nonBlank = z.string().trim().min(1);

function issue(ctx: z.RefinementCtx, path: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof CronExpressionError || error instanceof TimeZoneError)) throw error;
    ctx.addIssue({ code: 'custom', path: [path], message: error.message });
  }
}

function checkSchedule(schedule: { expr: string; tz?: string | undefined }, ctx: z.RefinementCtx): void {
  issue(ctx, 'expr', () => checkCron(schedule.expr));
  if (schedule.tz !== undefined) issue(ctx, 'tz', () => checkTimeZone(schedule.tz!));
}

export const cronScheduleSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('every'), seconds: z.number().int().positive() }),
  /** One-shot: runs once at `at`, then is removed. */
  z.object({ kind: z.literal('at'), at: isoTime }),
  /** Five fields: minute hour day-of-month month day-of-week; `tz` is an IANA zone, default UTC. */
  z.object({ kind: z.literal('cron'), expr: nonBlank, tz: nonBlank.optional() }).superRefine(checkSchedule),
]);

export type CronSchedule = z.infer<typeof cronScheduleSchema>;

/**
 * The five-field expression as croner reads it: Vixie cron's `a/n` steps and either day field matching when both
 * are restricted; no job of its own (croner only computes the dates, the cron actor keeps the one timer).
 */
function cronOf(expr: string, zone: string): Cron {
  const fields = expr.trim().split(/\s+/).length;
  if (!expr.trim().startsWith('@') && fields !== 5) {
    throw new CronExpressionError(
      `cron expression "${expr}" has ${fields} field${fields === 1 ? '' : 's'}; it needs 5 (${SYNTAX})`,
    );
  }
  try {
    return new Cron(expr.trim(), {
      mode: '5-part',
      timezone: zone,
      sloppyRanges: true,
      legacyMode: true,
      paused: true,
    });
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
    throw new CronExpressionError(`cron expression "${expr}" is not valid: ${why} (${SYNTAX})`);
  }
}

/** Throws `CronExpressionError` for an expression croner cannot read or that never matches a date. */
export function checkCron(expr: string): void {
  if (cronOf(expr, 'UTC').nextRun(new Date()) === null) {
    throw new CronExpressionError(
      `cron expression "${expr}" never matches a date (the day-of-month never occurs in the months it allows)`,
    );
  }
}

/**
 * When a schedule runs next, strictly after `now`; undefined when it never will (a one-shot whose time has passed).
 * `every` counts from `now`, so a run that took long does not make the next one come early.
 */
export function nextRunAfter(schedule: CronSchedule, now: Date): Date | undefined {
  switch (schedule.kind) {
    case 'every':
      return new Date(now.getTime() + schedule.seconds * 1000);
    case 'at': {
      const at = new Date(schedule.at);
      return at.getTime() > now.getTime() ? at : undefined;
    }
    case 'cron':
      return cronOf(schedule.expr, schedule.tz ?? 'UTC').nextRun(now) ?? undefined;
  }
}

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkCron, CronExpressionError, nextRunAfter } from '../../store/cron/schedule.js';
import { cronScheduleSchema, type CronSchedule } from '../../store/cron/job.js';

const next = (schedule: CronSchedule, now: string) => nextRunAfter(schedule, new Date(now))?.toISOString();
const cron = (expr: string, tz?: string): CronSchedule => (tz ? { kind: 'cron', expr, tz } : { kind: 'cron', expr });

test('every and at schedules count from now', () => {
  const cases: Array<[CronSchedule, string, string | undefined]> = [
    [{ kind: 'every', seconds: 600 }, '2026-03-01T10:00:00.000Z', '2026-03-01T10:10:00.000Z'],
    [{ kind: 'every', seconds: 1 }, '2026-03-01T10:00:00.500Z', '2026-03-01T10:00:01.500Z'],
    [{ kind: 'at', at: '2026-03-01T12:00:00.000Z' }, '2026-03-01T10:00:00.000Z', '2026-03-01T12:00:00.000Z'],
    [{ kind: 'at', at: '2026-03-01T13:00:00+01:00' }, '2026-03-01T10:00:00.000Z', '2026-03-01T12:00:00.000Z'],
    [{ kind: 'at', at: '2026-03-01T10:00:00.000Z' }, '2026-03-01T10:00:00.000Z', undefined],
    [{ kind: 'at', at: '2026-03-01T09:00:00.000Z' }, '2026-03-01T10:00:00.000Z', undefined],
  ];
  for (const [schedule, now, expected] of cases) assert.is(next(schedule, now), expected, JSON.stringify(schedule));
});

test('cron expressions give the next matching minute strictly after now (UTC)', () => {
  const cases: Array<[string, string, string]> = [
    ['* * * * *', '2026-03-01T10:00:00.000Z', '2026-03-01T10:01:00.000Z'],
    ['* * * * *', '2026-03-01T10:00:30.000Z', '2026-03-01T10:01:00.000Z'],
    ['*/15 * * * *', '2026-03-01T10:07:00.000Z', '2026-03-01T10:15:00.000Z'],
    ['0 9 * * *', '2026-03-01T09:00:00.000Z', '2026-03-02T09:00:00.000Z'],
    ['0 9 * * *', '2026-03-01T08:59:59.999Z', '2026-03-01T09:00:00.000Z'],
    ['30 8-10/2 * * *', '2026-03-01T08:31:00.000Z', '2026-03-01T10:30:00.000Z'],
    ['0 0 1 * *', '2026-01-31T12:00:00.000Z', '2026-02-01T00:00:00.000Z'],
    ['0 12 * * 1-5', '2026-02-27T12:00:00.000Z', '2026-03-02T12:00:00.000Z'], // Friday noon → Monday
    ['0 12 * * sun', '2026-03-01T13:00:00.000Z', '2026-03-08T12:00:00.000Z'],
    ['0 12 * * 7', '2026-03-01T13:00:00.000Z', '2026-03-08T12:00:00.000Z'],
    ['0 0 29 2 *', '2026-03-01T00:00:00.000Z', '2028-02-29T00:00:00.000Z'],
    ['0 0 13 * 5', '2026-03-01T00:00:00.000Z', '2026-03-06T00:00:00.000Z'], // both day fields: either matches
    ['0 0 1 jan,jul *', '2026-03-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'],
    ['5/20 * * * *', '2026-03-01T10:46:00.000Z', '2026-03-01T11:05:00.000Z'],
    ['59 23 31 12 *', '2026-12-31T23:59:00.000Z', '2027-12-31T23:59:00.000Z'],
    ['@hourly', '2026-03-01T10:00:00.000Z', '2026-03-01T11:00:00.000Z'],
    ['@weekly', '2026-03-02T00:00:00.000Z', '2026-03-08T00:00:00.000Z'],
  ];
  for (const [expr, now, expected] of cases) assert.is(next(cron(expr), now), expected, `${expr} after ${now}`);
});

test('cron expressions with a time zone follow its wall clock across daylight-saving changes', () => {
  const cases: Array<[string, string, string, string]> = [
    ['0 9 * * *', 'Europe/Paris', '2026-03-01T00:00:00.000Z', '2026-03-01T08:00:00.000Z'],
    ['0 9 * * *', 'Europe/Paris', '2026-07-01T00:00:00.000Z', '2026-07-01T07:00:00.000Z'],
    ['0 9 * * *', 'America/New_York', '2026-03-07T15:00:00.000Z', '2026-03-08T13:00:00.000Z'],
    // 02:30 does not exist in New York on 8 March 2026: that day it runs when the clock jumps, at 03:00 EDT.
    ['30 2 * * *', 'America/New_York', '2026-03-07T08:00:00.000Z', '2026-03-08T07:00:00.000Z'],
    ['30 2 * * *', 'America/New_York', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z'],
    // 01:30 happens twice on 1 November 2026: it runs at the first one only.
    ['30 1 * * *', 'America/New_York', '2026-11-01T04:00:00.000Z', '2026-11-01T05:30:00.000Z'],
    ['30 1 * * *', 'America/New_York', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z'],
    ['0 0 * * *', 'Asia/Kolkata', '2026-03-01T00:00:00.000Z', '2026-03-01T18:30:00.000Z'],
  ];
  for (const [expr, tz, now, expected] of cases)
    assert.is(next(cron(expr, tz), now), expected, `${expr} ${tz} after ${now}`);
});

const ALLOWED =
  '(allowed: minute hour day-of-month month day-of-week, each *, a value, a list a,b, ' +
  'a range a-b or a step */n, a-b/n or a/n; or @hourly, @daily, @weekly, @monthly, @yearly)';

test('a bad cron expression is refused with what is wrong and what is allowed', () => {
  const cases: Array<[string, string]> = [
    ['61 * * * *', `cron expression "61 * * * *" is not valid: Invalid value for minute: 61 ${ALLOWED}`],
    ['* 24 * * *', `cron expression "* 24 * * *" is not valid: Invalid value for hour: 24 ${ALLOWED}`],
    [
      '* * * foo *',
      `cron expression "* * * foo *" is not valid: configuration entry 4 (foo) contains illegal characters. ${ALLOWED}`,
    ],
    ['* * * * 1-8', `cron expression "* * * * 1-8" is not valid: Invalid value for dayOfWeek: 8 ${ALLOWED}`],
    ['*/0 * * * *', `cron expression "*/0 * * * *" is not valid: Syntax error, illegal stepping: 0 ${ALLOWED}`],
    ['5-1 * * * *', `cron expression "5-1 * * * *" is not valid: From value is larger than to value: '5-1' ${ALLOWED}`],
    [
      '0 0 30 2 *',
      'cron expression "0 0 30 2 *" never matches a date (the day-of-month never occurs in the months it allows)',
    ],
    ['* * * * * *', `cron expression "* * * * * *" has 6 fields; it needs 5 ${ALLOWED}`],
    ['* * * *', `cron expression "* * * *" has 4 fields; it needs 5 ${ALLOWED}`],
  ];
  for (const [expr, message] of cases) {
    try {
      checkCron(expr);
      assert.unreachable(expr);
    } catch (error) {
      assert.instance(error, CronExpressionError);
      assert.is((error as CronExpressionError).message, message);
    }
  }
});

test('the schedule schema refuses a bad expression or time zone at its field', () => {
  const cases: Array<[unknown, string[], string]> = [
    [
      { kind: 'cron', expr: '* * * * 9' },
      ['expr'],
      `cron expression "* * * * 9" is not valid: Invalid value for dayOfWeek: 9 ${ALLOWED}`,
    ],
    [
      { kind: 'cron', expr: '* * * * *', tz: 'Mars/Olympus' },
      ['tz'],
      'tz "Mars/Olympus" is not a known IANA time zone (for example UTC, Europe/Paris, America/New_York)',
    ],
  ];
  for (const [input, path, message] of cases) {
    const result = cronScheduleSchema.safeParse(input);
    assert.is(result.success, false);
    assert.equal(
      result.error?.issues.map((i) => [i.path, i.message]),
      [[path, message]],
    );
  }
});

test.run();

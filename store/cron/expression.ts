/** The five fields of a cron expression, in order, with the values each allows. */
export const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day-of-week', min: 0, max: 7 },
] as const;

export type CronFieldName = (typeof CRON_FIELDS)[number]['name'];

export class CronExpressionError extends Error {
  readonly code = 'bad_cron_expression';
  constructor(readonly field: CronFieldName | 'expression', message: string) {
    super(message);
    this.name = 'CronExpressionError';
  }
}

/** Which values each field matches; day-of-week 7 is folded into 0 (both are Sunday). */
export interface CronExpression {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  /** Classic cron: when both day fields are restricted, a day matching either one runs. */
  dayFields: 'both-restricted' | 'not-both';
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const NAMES: Partial<Record<CronFieldName, readonly string[]>> = {
  month: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  'day-of-week': ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
};

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

type Field = (typeof CRON_FIELDS)[number];

function allowed(field: Field): string {
  const names = NAMES[field.name];
  return `${field.min}-${field.max}${names ? ` or ${names[0]}-${names[names.length - 1]}` : ''}`;
}

function fail(field: Field, part: string, why: string): never {
  throw new CronExpressionError(field.name, `${field.name} field "${part}" ${why} (allowed: ${allowed(field)}, *, lists a,b, ranges a-b, steps */n or a-b/n)`);
}

function value(field: Field, text: string, part: string): number {
  const named = NAMES[field.name]?.indexOf(text.toLowerCase()) ?? -1;
  const offset = field.name === 'month' ? 1 : 0;
  if (named >= 0) return named + offset;
  if (!/^\d+$/.test(text)) fail(field, part, 'is not a number');
  const number = Number(text);
  if (number < field.min || number > field.max) fail(field, part, 'is out of range');
  return number;
}

function range(field: Field, text: string, part: string): [number, number] {
  if (text === '*') return [field.min, field.max];
  const [from, to, extra] = text.split('-');
  if (extra !== undefined || from === undefined) fail(field, part, 'has too many dashes');
  const start = value(field, from, part);
  const end = to === undefined ? start : value(field, to, part);
  if (end < start) fail(field, part, 'is a range that runs backwards');
  return [start, end];
}

function parsePart(field: Field, part: string, into: Set<number>): void {
  const [span, stepText, extra] = part.split('/');
  if (extra !== undefined || span === undefined || span === '') fail(field, part, 'is not a value, range or step');
  if (stepText !== undefined && !/^[1-9]\d*$/.test(stepText)) fail(field, part, 'has a step that is not a whole number ≥ 1');
  const step = stepText === undefined ? 1 : Number(stepText);
  const [start, end] = range(field, span, part);
  // `5/15` means from 5 to the end of the field in steps of 15, as in Vixie cron.
  const last = stepText !== undefined && !span.includes('-') && span !== '*' ? field.max : end;
  for (let n = start; n <= last; n += step) into.add(n);
}

function parseField(field: Field, text: string): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    if (part === '') fail(field, text, 'has an empty list item');
    parsePart(field, part, values);
  }
  return values;
}

function checkDayCanOccur(daysOfMonth: ReadonlySet<number>, months: ReadonlySet<number>): void {
  const longest = Math.max(...[...months].map((m) => DAYS_IN_MONTH[m - 1] ?? 0));
  if (Math.min(...daysOfMonth) > longest) {
    throw new CronExpressionError('day-of-month', `day-of-month field never occurs in the months the month field allows`);
  }
}

/** Parses `minute hour day-of-month month day-of-week` (or a macro such as `@daily`). */
export function parseCronExpression(expression: string): CronExpression {
  const trimmed = expression.trim();
  const fields = (MACROS[trimmed.toLowerCase()] ?? trimmed).split(/\s+/);
  if (fields.length !== 5) {
    throw new CronExpressionError('expression', `cron expression "${expression}" has ${fields.length} fields; it needs 5: minute hour day-of-month month day-of-week (or @hourly, @daily, @weekly, @monthly, @yearly)`);
  }
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = CRON_FIELDS.map((field, i) => parseField(field, fields[i]!)) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (daysOfWeek.delete(7)) daysOfWeek.add(0);
  const bothRestricted = !fields[2]!.startsWith('*') && !fields[4]!.startsWith('*');
  if (!bothRestricted) checkDayCanOccur(daysOfMonth, months);
  return { minutes, hours, daysOfMonth, months, daysOfWeek, dayFields: bothRestricted ? 'both-restricted' : 'not-both' };
}

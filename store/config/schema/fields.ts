import * as z from 'zod/mini';
import { describeValue as show, kindOf } from '../problems.js';
import { Secret } from '../secret.js';
import { shared } from './shared.js';

/** An error message for a value of the wrong kind; a missing value is named as such. */
function wrong(what: string, allowed: string) {
  return (issue: { input?: unknown }) =>
    issue.input === undefined
      ? `is required (allowed: ${allowed})`
      : `${show(issue.input)} is not ${what} (allowed: ${allowed})`;
}

function rangeText(min: number, max?: number): string {
  return max === undefined ? `${min} or more` : `${min} to ${max}`;
}

function wholeNumber(min: number, max?: number) {
  const range = `whole numbers ${rangeText(min, max)}`;
  const base = z.int({ error: wrong('a whole number', range) });
  const low = z.gte(min, { error: (issue) => `${show(issue.input)} is too small (allowed: ${range})` });
  return max === undefined
    ? base.check(low)
    : base.check(low, z.lte(max, { error: (issue) => `${show(issue.input)} is too large (allowed: ${range})` }));
}

const wholeNumbers = new Map<string, ReturnType<typeof wholeNumber>>();

/** A whole number in a range; every violation names the range. */
export function int(min: number, max?: number) {
  const key = `${min}:${max}`;
  const found = wholeNumbers.get(key);
  if (found) return found;
  const built = wholeNumber(min, max);
  wholeNumbers.set(key, built);
  return built;
}

/** A price or an amount of money in US dollars: `0` allowed (a free model), negative never. */
export const dollars = shared(() =>
  z
    .number({ error: wrong('a number', 'US dollars, 0 or more') })
    .check(z.gte(0, { error: (issue) => `${show(issue.input)} is too small (allowed: US dollars, 0 or more)` })),
);

/** A sampling temperature: a number from 0 to 2 (the widest range vendors take). */
export const temperature = shared(() =>
  z
    .number({ error: wrong('a number', 'numbers from 0 to 2') })
    .check(
      z.gte(0, { error: (issue) => `${show(issue.input)} is too small (allowed: numbers from 0 to 2)` }),
      z.lte(2, { error: (issue) => `${show(issue.input)} is too large (allowed: numbers from 0 to 2)` }),
    ),
);

/** A spending limit in US dollars: above 0 (a limit of nothing is no limit; leave it out). */
export const limitDollars = shared(() =>
  z.number({ error: wrong('a number', 'US dollars above 0') }).check(
    z.gt(0, {
      error: (issue) =>
        `${show(issue.input)} is too small (allowed: US dollars above 0; leave the field out for no limit)`,
    }),
  ),
);

export const bool = shared(() => z.boolean({ error: wrong('a boolean', 'true, false') }));

export const text = shared(() => z.string({ error: wrong('a string', 'text') }));

export const nonEmptyText = shared(() =>
  text().check(z.trim(), z.minLength(1, { error: 'must not be empty (allowed: non-empty text)' })),
);

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: wrong('allowed', values.join(', ')) });
}

export const textList = shared(() => z.array(text(), { error: wrong('a list', 'a list of strings') }));

export function list<T extends z.core.SomeType>(item: T) {
  return z.array(item, { error: wrong('a list', 'a list') });
}

/** Names the kind of a wrong value but never the value: it may be a key. */
function wrongSecret(what: string, allowed: string) {
  return (issue: { input?: unknown }) => {
    if (issue.input === undefined) return `is required (allowed: ${allowed})`;
    return `${kindOf(issue.input)} is not ${what} (allowed: ${allowed})`;
  };
}

/** Strings and already-wrapped secrets both become `Secret`, so a parsed config never holds a bare key. */
export const secret = shared(() =>
  z.pipe(
    z.union([z.instanceof(Secret), z.string()], { error: wrongSecret('a string', 'text') }),
    z.transform((value: Secret | string) => (value instanceof Secret ? value : new Secret(value))),
  ),
);

export const secretList = shared(() => z.array(secret(), { error: wrongSecret('a list', 'a list of strings') }));

/** A proxy's URL (http, https or SOCKS5), or empty for none; credentials in it are shown masked. */
export const proxyUrl = shared(() =>
  text().check(
    z.refine((value: string) => value === '' || /^(https?|socks5?):\/\/[^/\s]+/i.test(value), {
      error: () => 'is not a proxy URL (allowed: http://[user:password@]host:port, https://…, socks5://…, or "")',
    }),
  ),
);

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

export function clockTime() {
  return text().check(
    z.regex(HH_MM, { error: (issue) => `${show(issue.input)} is not a time (allowed: HH:MM from 00:00 to 23:59)` }),
  );
}

/** A regular expression as text; one that does not compile is reported where it is written. */
export const pattern = shared(() =>
  text().check(
    z.refine(
      (source: string) => {
        try {
          new RegExp(source);
          return true;
        } catch {
          return false;
        }
      },
      {
        error: (issue) => `${show(issue.input)} is not a valid regular expression (allowed: JavaScript RegExp syntax)`,
      },
    ),
  ),
);

const REMOTE = /^(\*|[^:\s]+(:[^\s]+)?)$/;

/** Remote chats a tool may be used from: `<channel>`, `<channel>:<chat_id>`, or `*` (every remote chat). */
export const remoteList = shared(() =>
  list(
    text().check(
      z.regex(REMOTE, {
        error: (issue) => `${show(issue.input)} is not a remote (allowed: <channel>, <channel>:<chat_id>, *)`,
      }),
    ),
  ),
);

export const SESSION_DIMENSIONS = ['space', 'chat', 'topic', 'sender'] as const;

export const sessionDimensions = shared(() => list(oneOf(SESSION_DIMENSIONS)));

import * as z from 'zod/mini';
import { bool, int, list, nonEmptyText, oneOf, secret, text } from './fields.js';
import { optional, withDefault } from './shared.js';

/** The hook points a process may intercept (the peer runtime's names). */
export const INTERCEPT_POINTS = ['before_llm', 'after_llm', 'before_tool', 'after_tool', 'approve_tool'] as const;

/** An event type (`tool.completed`), a glob of them (`tool.*`), or everything (`*`, `all`). */
const EVENT_PATTERN = /^(\*|all|[a-z][a-z_]*(\.[a-z_*][a-z_*]*)*(\.\*)?)$/;

const observedType = text().check(
  z.regex(EVENT_PATTERN, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not an event type (allowed: an event ` +
      `type such as tool.completed, a glob such as tool.*, or * for all)`,
  }),
);

export const processHookSchema = z
  .object({
    enabled: withDefault(bool(), true),
    /** Lower runs first; equal priorities run by name. */
    priority: withDefault(int(-1_000_000, 1_000_000), 0),
    transport: withDefault(oneOf(['stdio']), 'stdio'),
    command: list(nonEmptyText()).check(
      z.minLength(1, { error: 'must name the program to run (allowed: a list such as ["node", "hook.js"])' }),
    ),
    dir: optional(text()),
    env: withDefault(z.record(z.string(), secret()), {}),
    /** Absent: not an observer; empty: every event type. */
    observe: optional(list(observedType)),
    intercept: withDefault(list(oneOf(INTERCEPT_POINTS)), []),
  })
  .check(
    z.superRefine((hook, ctx) => {
      if (hook.observe === undefined && hook.intercept.length === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['intercept'],
          message:
            `the hook neither observes nor intercepts anything (allowed: observe ` +
            `[event types], or intercept any of ${INTERCEPT_POINTS.join(', ')})`,
        });
      }
    }),
  );

export const hooksSchema = z.object({
  enabled: withDefault(bool(), true),
  defaults: z.prefault(
    z.object({
      observer_timeout_ms: withDefault(int(1, 600_000), 500),
      interceptor_timeout_ms: withDefault(int(1, 600_000), 5000),
      approval_timeout_ms: withDefault(int(1, 86_400_000), 60_000),
    }),
    {},
  ),
  processes: withDefault(z.record(z.string(), processHookSchema), {}),
});

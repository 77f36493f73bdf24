import type { Request } from 'express';
import * as z from 'zod';

export const MAX_EVENTS = 1000;

const whole = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, { error: `${name} must be a whole number` })
    .transform(Number);

/** `/api/events` parameters; each bad one is reported by name. */
export const eventsQuerySchema = z
  .object({
    session: z.string().min(1).optional(),
    turn: z.string().min(1).optional(),
    type: z
      .string()
      .regex(/^[a-z_.*,]+$/, {
        error: 'type must be an event type or pattern such as provider.* (allowed: a-z _ . * ,)',
      })
      .optional(),
    after: whole('after').optional(),
    before: whole('before').optional(),
    since: whole('since').optional(),
    until: whole('until').optional(),
    limit: whole('limit')
      .pipe(
        z
          .number()
          .int()
          .min(1, { error: `limit must be from 1 to ${MAX_EVENTS}` })
          .max(MAX_EVENTS, { error: `limit must be from 1 to ${MAX_EVENTS}` }),
      )
      .optional(),
    order: z.enum(['asc', 'desc'], { error: 'order must be asc or desc' }).optional(),
  })
  .strict();

export type EventsQuery = z.infer<typeof eventsQuerySchema>;

export class QueryError extends Error {
  readonly code = 'bad_query';
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

/** Parses the query string; repeated or unknown parameters are refused with the parameter's name. */
export function parseQuery<T extends z.ZodType>(schema: T, req: Request): z.infer<T> {
  const raw: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string') throw new QueryError(`${name} may be given once, as plain text`);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') throw new QueryError(`unknown parameter ${issue.keys.join(', ')}`);
  const name = String(issue?.path[0] ?? 'query');
  const message = issue?.message ?? 'is not valid';
  throw new QueryError(message.startsWith(name) ? message : `${name}: ${message}`);
}

import * as z from 'zod';

export const TODO_ID_MAX_BYTES = 128;
export const TODO_CONTENT_MAX_BYTES = 1024;
export const TODO_PLAN_MAX_ITEMS = 100;
/** Nonempty session plans one tool instance holds; a plan stays counted until it is cleared. */
export const TODO_PLAN_SLOTS = 256;
export const TODO_STATUSES = ['pending', 'in_progress', 'completed', 'canceled'] as const;
export const TODO_PRIORITIES = ['low', 'medium', 'high'] as const;

const encoder = new TextEncoder();
const byteLength = (text: string): number => encoder.encode(text).length;

function boundedText(maxBytes: number, description: string) {
  return z
    .string({ error: 'must be a string' })
    .refine((s) => s.trim().length > 0, { error: 'must not be blank' })
    .refine((s) => byteLength(s) <= maxBytes, { error: `must be at most ${maxBytes} UTF-8 bytes` })
    .describe(description);
}

export const todoPlanItemSchema = z.object(
  {
    id: boundedText(TODO_ID_MAX_BYTES, `Unique in the plan, nonblank, at most ${TODO_ID_MAX_BYTES} UTF-8 bytes`),
    content: boundedText(TODO_CONTENT_MAX_BYTES, `What to do, nonblank, at most ${TODO_CONTENT_MAX_BYTES} UTF-8 bytes`),
    status: z.enum(TODO_STATUSES, { error: `must be one of ${TODO_STATUSES.join(', ')}` }).default('pending'),
    priority: z.enum(TODO_PRIORITIES, { error: `must be one of ${TODO_PRIORITIES.join(', ')}` }).default('medium'),
  },
  { error: 'must be an object with id and content' },
);

/** A complete plan as the model writes it: it replaces the previous one; `[]` clears it. */
export const todoPlanSchema = z
  .array(todoPlanItemSchema, { error: 'must be an array of plan items' })
  .max(TODO_PLAN_MAX_ITEMS, { error: `must hold at most ${TODO_PLAN_MAX_ITEMS} items` })
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      if (seen.has(item.id))
        ctx.addIssue({
          code: 'custom',
          path: [index, 'id'],
          message: `"${item.id}" is already the id of another item; ids must be unique`,
        });
      seen.add(item.id);
    });
  });

export type TodoItem = z.output<typeof todoPlanItemSchema>;

/** Either the plan with defaults applied, or one line naming every bad field (`todos[2].status: …`). */
export function parseTodoPlan(todos: unknown): { ok: true; todos: TodoItem[] } | { ok: false; problem: string } {
  if (todos === undefined || todos === null)
    return { ok: false, problem: 'todos is required for write (missing or null); send [] to clear the plan' };
  const parsed = todoPlanSchema.safeParse(todos, { reportInput: true });
  if (parsed.success) return { ok: true, todos: parsed.data };
  return { ok: false, problem: parsed.error.issues.map(describeIssue).join('; ') };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  if (issue.code === 'invalid_type' && issue.input === undefined) return `todos${path}: is required`;
  const got = issue.code === 'invalid_value' ? ` (got ${JSON.stringify(issue.input)})` : '';
  return `todos${path}: ${issue.message}${got}`;
}

/**
 * What text logs say about a tool call's arguments: their keys and how many there are, never a value (spec: "tool
 * call logs record only argument keys and their count"). The event log keeps the values, which replay needs.
 */
export interface ArgumentKeys {
  keys: string[];
  count: number;
}

export function argumentKeys(args: Record<string, unknown>): ArgumentKeys {
  const keys = Object.keys(args);
  return { keys, count: keys.length };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `data` with every tool call's `arguments` (a tool request, the calls in a model's answer or a prompt's history, a
 * hook's changed call) replaced by its keys and count; parts without one are the same objects.
 */
export function withArgumentKeys<T>(data: T): T {
  return summarize(data) as T;
}

function summarize(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const next = summarize(item);
      if (next !== item) (copy ??= value.slice())[i] = next;
    });
    return copy ?? value;
  }
  if (!isRecord(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = key === 'arguments' && isRecord(item) ? argumentKeys(item) : summarize(item);
    if (next !== item) (copy ??= { ...value })[key] = next;
  }
  return copy ?? value;
}

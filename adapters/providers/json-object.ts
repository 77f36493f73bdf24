/** A field of a JSON object as text: its name and its value's JSON (`undefined`: the field is left out). */
export type Field = [name: string, json: string | undefined];

/** Names an object orders first, ascending, whatever order they were added in (ECMAScript's array indices). */
const isIndex = (name: string): boolean => /^(?:0|[1-9]\d*)$/.test(name) && Number(name) < 2 ** 32 - 1;

/**
 * `JSON.stringify({ ...fields, ...extra })` for fields whose values are JSON already: so a part that stays the same
 * from request to request (the tool schemas) is serialized once, not on every request. As with the spread, `extra`'s
 * fields replace ours in place, its new ones come after ours, and its array-index names come first.
 */
export function jsonObject(fields: readonly Field[], extra: Record<string, unknown> = {}): string {
  const merged = new Map<string, string | undefined>();
  const added = Object.keys(extra);
  for (const name of added) if (isIndex(name)) merged.set(name, JSON.stringify(extra[name]));
  for (const [name, json] of fields) if (json !== undefined) merged.set(name, json);
  for (const name of added) if (!isIndex(name)) merged.set(name, JSON.stringify(extra[name]));
  const parts: string[] = [];
  for (const [name, json] of merged) if (json !== undefined) parts.push(`${JSON.stringify(name)}:${json}`);
  return `{${parts.join(',')}}`;
}

/**
 * JSON text: a string, or bytes already encoded (UTF-8), for a part that stays the same from request to request and
 * would otherwise be copied into every body and encoded again.
 */
export type Json = string | Buffer;

/** A field of a JSON object as text: its name and its value's JSON (`undefined`: the field is left out). */
export type Field = [name: string, json: Json | undefined];

/** Names an object orders first, ascending, whatever order they were added in (ECMAScript's array indices). */
const isIndex = (name: string): boolean => /^(?:0|[1-9]\d*)$/.test(name) && Number(name) < 2 ** 32 - 1;

/**
 * `JSON.stringify({ ...fields, ...extra })` as UTF-8 bytes, for fields whose values are JSON already: so a part that
 * stays the same from request to request (the tool schemas) is serialized and encoded once, and a body is one copy of
 * its parts, not a string built, flattened and encoded again. As with the spread, `extra`'s fields replace ours in
 * place, its new ones come after ours, and its array-index names come first.
 */
export function jsonObject(fields: readonly Field[], extra: Record<string, unknown> = {}): Buffer {
  const merged = new Map<string, Json | undefined>();
  const added = Object.keys(extra);
  for (const name of added) if (isIndex(name)) merged.set(name, JSON.stringify(extra[name]));
  for (const [name, json] of fields) if (json !== undefined) merged.set(name, json);
  for (const name of added) if (!isIndex(name)) merged.set(name, JSON.stringify(extra[name]));
  const bytes: Buffer[] = [];
  // Text between two encoded parts is encoded in one piece.
  let text = '{';
  let first = true;
  for (const [name, json] of merged) {
    if (json === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    if (typeof json === 'string') text += json;
    else {
      bytes.push(Buffer.from(text), json);
      text = '';
    }
  }
  bytes.push(Buffer.from(`${text}}`));
  return Buffer.concat(bytes);
}

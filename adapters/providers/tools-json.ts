import type { ToolSpec } from './provider.js';

/**
 * The `tools` array of a chat-completions body as JSON text, made once per tool set: a turn sends the same specs on
 * every model call, and their JSON schemas are most of a request's bytes. A spec is known by its schema object (the
 * registry makes each once; an MCP server's is kept while its listing is), with its name and description checked;
 * a list by its identity, with its items checked. So a changed list or spec is serialized anew.
 */
const bySchema = new WeakMap<object, { name: string; description: string; json: string }>();
const byList = new WeakMap<readonly ToolSpec[], { specs: ToolSpec[]; json: string; bytes?: Buffer }>();

function specJson(spec: ToolSpec): string {
  const known = bySchema.get(spec.parameters);
  if (known && known.name === spec.name && known.description === spec.description) return known.json;
  const { name, description, parameters } = spec;
  const json = JSON.stringify({ type: 'function', function: { name, description, parameters } });
  bySchema.set(parameters, { name, description, json });
  return json;
}

const sameItems = (a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean =>
  a.length === b.length && a.every((spec, i) => spec === b[i]);

function listEntry(specs: readonly ToolSpec[]): { specs: ToolSpec[]; json: string; bytes?: Buffer } {
  const known = byList.get(specs);
  if (known && sameItems(known.specs, specs)) return known;
  const entry = { specs: [...specs], json: `[${specs.map(specJson).join(',')}]` };
  byList.set(specs, entry);
  return entry;
}

/** `JSON.stringify` of the specs in wire form: `{type: 'function', function: {name, description, parameters}}`. */
export function toolsJson(specs: readonly ToolSpec[]): string {
  return listEntry(specs).json;
}

/** `toolsJson` as UTF-8, encoded once per tool set (most of a request's bytes). */
export function toolsBytes(specs: readonly ToolSpec[]): Buffer {
  const entry = listEntry(specs);
  entry.bytes ??= Buffer.from(entry.json);
  return entry.bytes;
}

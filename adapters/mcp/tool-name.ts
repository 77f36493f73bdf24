import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
const HASH_CHARS = 8;

function sanitize(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_CHARS);
}

function withHash(base: string, origin: string): string {
  return `${base.slice(0, MAX_TOOL_NAME - HASH_CHARS - 1)}_${shortHash(origin)}`;
}

export interface ToolOrigin {
  server: string;
  tool: string;
}

/**
 * Model-facing names `mcp_<server>_<tool>`: only `[A-Za-z0-9_-]`, at most 64 characters. A name that
 * had to be cut, or that would clash with one already given, ends in a hash of its server and tool,
 * so the same tool keeps the same name across reconnects. Origins are named in the order given.
 */
export function mcpToolNames(origins: ToolOrigin[], taken: ReadonlySet<string> = new Set()): Map<string, ToolOrigin> {
  const names = new Map<string, ToolOrigin>();
  const used = new Set(taken);
  for (const origin of origins) {
    const key = `${origin.server}\u0000${origin.tool}`;
    const plain = sanitize(`mcp_${origin.server}_${origin.tool}`);
    let name = plain.length <= MAX_TOOL_NAME ? plain : withHash(plain, key);
    if (used.has(name)) name = withHash(plain, key);
    for (let n = 2; used.has(name); n++) name = withHash(plain, `${key}\u0000${n}`);
    used.add(name);
    names.set(name, origin);
  }
  return names;
}

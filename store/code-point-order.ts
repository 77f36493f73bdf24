/**
 * Orders text by code point, as `Array.prototype.sort` does without a comparator. What reaches a prompt (the skills
 * catalog, MCP tools, skill search results) must not depend on the host's locale, which `localeCompare` follows:
 * with `LANG=lt_LT.UTF-8`, `yak` sorts before `jolly`, so two cluster members would build two prompts from the same
 * files.
 */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

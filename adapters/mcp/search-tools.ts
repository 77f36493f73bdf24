import * as z from 'zod';
import { ok, ToolError, type Tool, type ToolContext, type ToolResult } from '../tools/tool.js';
import { Bm25Index } from './bm25.js';
import type { McpTool } from './mcp-tool.js';
import type { McpDiscoveryOptions } from './options.js';

export const BM25_TOOL = 'tool_search_tool_bm25';
export const REGEX_TOOL = 'tool_search_tool_regex';
const MAX_PATTERN = 200;

/**
 * What the search tools need from their session: the hidden tools in the agent's scope, and the
 * session's discovery machine, which receives what was found (`FOUND`) and unlocks it for `ttl` turns.
 */
export interface DiscoveryHooks {
  hidden(): McpTool[];
  found(tools: string[], context: ToolContext): void;
}

const bm25Arguments = z.object({
  query: z.string().trim().min(1).describe('Keywords describing the capability you need'),
});
const regexArguments = z.object({
  pattern: z
    .string()
    .min(1)
    .max(MAX_PATTERN)
    .describe('A JavaScript regular expression, matched case-insensitively against tool names and descriptions'),
});

function answer(
  found: McpTool[],
  query: string,
  discovery: McpDiscoveryOptions,
  hooks: DiscoveryHooks,
  context: ToolContext,
): ToolResult {
  if (found.length === 0) return ok(`No hidden MCP tool matches ${JSON.stringify(query)}. Try other words.`);
  hooks.found(
    found.map((tool) => tool.name),
    context,
  );
  const lines = found.map((tool) => `- ${tool.name}: ${tool.summary || '(no description)'}`);
  return ok(
    `Found ${found.length} MCP tool${found.length === 1 ? '' : 's'}, now available for ${discovery.ttl} turns:\n` +
      lines.join('\n'),
  );
}

function searchText(tool: McpTool): string {
  return `${tool.name} ${tool.remoteName} ${tool.summary}`;
}

export function bm25SearchTool(
  discovery: McpDiscoveryOptions,
  hooks: DiscoveryHooks,
): Tool<z.infer<typeof bm25Arguments>> {
  return {
    name: BM25_TOOL,
    description:
      'Search the hidden MCP tools by keywords (BM25 over names and descriptions). ' +
      `Up to ${discovery.max_search_results} matches become callable for ${discovery.ttl} turns.`,
    parameters: bm25Arguments,
    execute: async ({ query }, context) => {
      const hidden = hooks.hidden();
      const byName = new Map(hidden.map((tool) => [tool.name, tool]));
      const index = new Bm25Index(hidden.map((tool) => ({ id: tool.name, text: searchText(tool) })));
      const found = index.search(query, discovery.max_search_results).map((hit) => byName.get(hit.id)!);
      return answer(found, query, discovery, hooks, context);
    },
  };
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'i');
  } catch (error) {
    throw new ToolError('invalid_pattern', `pattern: not a valid regular expression (${(error as Error).message})`);
  }
}

export function regexSearchTool(
  discovery: McpDiscoveryOptions,
  hooks: DiscoveryHooks,
): Tool<z.infer<typeof regexArguments>> {
  return {
    name: REGEX_TOOL,
    description:
      'Search the hidden MCP tools with a regular expression over names and descriptions. ' +
      `Up to ${discovery.max_search_results} matches become callable for ${discovery.ttl} turns.`,
    parameters: regexArguments,
    execute: async ({ pattern }, context) => {
      const matcher = compile(pattern);
      const found = hooks
        .hidden()
        .filter((tool) => matcher.test(searchText(tool)))
        .slice(0, discovery.max_search_results);
      return answer(found, pattern, discovery, hooks, context);
    },
  };
}

/** The search tools a turn offers while some MCP tools are hidden: BM25 and/or regex, as configured. */
export function discoverySearchTools(discovery: McpDiscoveryOptions, hooks: DiscoveryHooks): Tool[] {
  const tools: Tool[] = [];
  if (discovery.use_bm25) tools.push(bm25SearchTool(discovery, hooks) as Tool);
  if (discovery.use_regex) tools.push(regexSearchTool(discovery, hooks) as Tool);
  return tools;
}

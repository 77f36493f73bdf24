import * as z from 'zod';
import { fail, ok, type Tool } from '../tool.js';
import type { RecallPort } from './port.js';

export const DEFAULT_RESULTS = 6;
export const MAX_RESULTS = 50;

const parameters = z.object({
  query: z.string().describe('What to look for: the words the fact was said in (names, places, things)'),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(MAX_RESULTS)
    .optional()
    .describe(`How many results at most (default ${DEFAULT_RESULTS})`),
});

/**
 * `memory_search` (OpenClaw's name and shape): full text over MEMORY.md, memory/*.md and this chat's past turns.
 * Each result cites its file and lines, or its session, turn id and time, so `memory_get` can read it whole.
 */
export function memorySearchTool(port: RecallPort): Tool<z.infer<typeof parameters>> {
  return {
    name: 'memory_search',
    description:
      'Search long-term memory before answering questions about earlier conversations, decisions, dates, people, ' +
      'preferences or todos: MEMORY.md, memory/*.md and past turns ' +
      'of this chat. Returns the best snippets, each with ' +
      'its file and lines or its session, turn_id and time; read one whole with memory_get.',
    parameters,
    async execute({ query, max_results }, context) {
      if (query.trim() === '') return fail('memory_search needs a query: the words to look for.');
      const results = await port.search(query, max_results ?? DEFAULT_RESULTS, context);
      return ok(JSON.stringify({ results }, null, 1));
    },
  };
}

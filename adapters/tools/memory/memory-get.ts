import * as z from 'zod';
import { fail, ok, type Tool } from '../tool.js';
import type { RecallPort } from './port.js';

const parameters = z.object({
  path: z.string().optional().describe('A memory file from memory_search, e.g. memory/MEMORY.md'),
  turn_id: z.string().optional().describe("A turn_id from memory_search: that turn's message and reply"),
});

/** `memory_get`: a memory file whole, or one past turn (its message and reply) by the id `memory_search` cited. */
export function memoryGetTool(port: RecallPort): Tool<z.infer<typeof parameters>> {
  return {
    name: 'memory_get',
    description: 'Read what memory_search found: give path for a memory file, or turn_id for a past turn of this chat.',
    parameters,
    async execute({ path, turn_id }, context) {
      if ((path === undefined) === (turn_id === undefined))
        return fail('memory_get takes exactly one of path or turn_id.');
      if (path !== undefined) {
        const text = await port.file(path.trim(), context);
        return text === undefined ? fail(`${path} is not a memory file (MEMORY.md or memory/*.md).`) : ok(text);
      }
      const turn = await port.turn(turn_id!.trim(), context);
      return turn ? ok(JSON.stringify(turn, null, 1)) : fail(`No turn ${turn_id} in this chat's memory.`);
    },
  };
}

import type { Runtime } from '../../../actors/runtime.js';
import type { MemorySearch } from '../../../bus/api-shapes.js';

/**
 * The dashboard's search box: the running gateway's recall over every chat of the agent, as the owner sees it
 * (`tern memory search` without `--session`). It shares the index the memory tools keep, so it costs no second copy.
 */
export async function searchMemory(
  runtime: Runtime,
  query: string,
  limit: number,
  agent?: string,
): Promise<MemorySearch> {
  const id = agent ?? runtime.defaultAgent();
  const recall = await runtime.recall.get();
  return {
    query,
    agent: id,
    results: await recall.find(query, { agent: id, channel: '', chat: '', scope: 'shared' }, limit),
  };
}

import type { RecallResult, RecalledTurn } from '../../../store/memory/recall.js';
import type { ToolContext } from '../tool.js';

/** What the memory tools need from recall, for the caller's chat (its scope applied by whoever provides this). */
export interface RecallPort {
  search(query: string, limit: number, context: ToolContext): Promise<RecallResult[]>;
  file(path: string, context: ToolContext): Promise<string | undefined>;
  turn(turnId: string, context: ToolContext): Promise<RecalledTurn | undefined>;
}

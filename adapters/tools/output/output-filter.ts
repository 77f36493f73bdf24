import type { FilterOptions } from '../options.js';
import type { ToolResult } from '../tool.js';
import { charCount, saveArtifact } from './artifact.js';
import { filterSecrets } from './secret-filter.js';

/** What every tool result passes before the model sees it: secrets masked, then long text moved to a file. */
export async function filterResult(result: ToolResult, options: FilterOptions, workspace: string): Promise<ToolResult> {
  const masked = filterSecrets(result.content, options);
  const chars = charCount(masked);
  const content = chars > options.maxInlineTextChars ? await saveArtifact(workspace, masked, chars) : masked;
  return { ...result, content };
}

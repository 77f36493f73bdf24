import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const ARTIFACT_DIR = 'artifacts';

/**
 * Saves an over-long result in the workspace and returns what the model gets instead: a short note
 * and the structured `[file:…]` path it can read back in pages.
 */
export async function saveArtifact(workspace: string, text: string, chars: number): Promise<string> {
  const relativePath = `${ARTIFACT_DIR}/${randomUUID()}.txt`;
  await mkdir(join(workspace, ARTIFACT_DIR), { recursive: true });
  await writeFile(join(workspace, relativePath), text);
  return (
    `The result was ${chars} characters, too long to show inline; it was saved to ${relativePath}. Read it with ` +
    `read_file.\n[file:${relativePath}]`
  );
}

/** Unicode characters, not UTF-16 units or bytes. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

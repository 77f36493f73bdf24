import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statOf } from '../stat.js';
import { parseAgentDoc, type AgentDoc } from './frontmatter.js';

/** The workspace files that shape a prompt, relative to the workspace. */
export const PROMPT_FILES = {
  agent: 'AGENT.md',
  soul: 'SOUL.md',
  user: 'USER.md',
  identity: 'IDENTITY.md',
  heartbeat: 'HEARTBEAT.md',
  memory: 'memory/MEMORY.md',
} as const;

export type PromptFile = keyof typeof PROMPT_FILES;

interface Cached<T> {
  mtimeMs: number;
  size: number;
  value: T;
}

/**
 * Reads the prompt files, re-reading one only when its modification time or size changes, so an edit
 * reaches the next request without a restart and unchanged files cost one `stat`. A missing file reads
 * as empty text.
 */
export class WorkspaceFiles {
  private readonly cache = new Map<string, Cached<unknown>>();

  constructor(readonly root: string) {}

  text(file: PromptFile): string {
    return this.cached('text', PROMPT_FILES[file], (text) => text);
  }

  /** `AGENT.md` split into validated frontmatter and body; throws `WorkspaceError` for bad frontmatter. */
  agent(): AgentDoc {
    const path = join(this.root, PROMPT_FILES.agent);
    return this.cached('doc', PROMPT_FILES.agent, (text) => parseAgentDoc(text, path));
  }

  /** `kind` keeps the raw text and the parsed document of one file apart in the cache. */
  private cached<T>(kind: 'text' | 'doc', relative: string, read: (text: string) => T): T {
    const path = join(this.root, relative);
    const key = `${kind}:${relative}`;
    const stats = statOf(path);
    if (!stats) {
      this.cache.delete(key);
      return read('');
    }
    const hit = this.cache.get(key) as Cached<T> | undefined;
    if (hit && hit.mtimeMs === stats.mtimeMs && hit.size === stats.size) return hit.value;
    const value = read(readFileSync(path, 'utf8'));
    this.cache.set(key, { mtimeMs: stats.mtimeMs, size: stats.size, value });
    return value;
  }
}

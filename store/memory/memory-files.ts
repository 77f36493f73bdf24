import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { readUserText } from '../files/regular-file.js';
import { processTerm } from './terms.js';

/** A passage of a memory file: a paragraph (lines without a blank one between them), at most `MAX_LINES` long. */
export interface FileChunk {
  path: string;
  startLine: number;
  endLine: number;
  text: string;
}

export interface FileHit extends FileChunk {
  score: number;
}

const MAX_LINES = 20;

const isPlainFile = (path: string): boolean => {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The memory files of a workspace, relative to it: `MEMORY.md` at the top if present, then `memory/*.md`. Links are
 * left out: a command run in the workspace could plant one to a file outside it.
 */
export function memoryFiles(workspace: string): string[] {
  const files = isPlainFile(join(workspace, 'MEMORY.md')) ? ['MEMORY.md'] : [];
  let names: string[] = [];
  try {
    names = readdirSync(join(workspace, 'memory')).sort();
  } catch {
    // no memory/ folder yet
  }
  for (const name of names)
    if (name.endsWith('.md') && isPlainFile(join(workspace, 'memory', name))) files.push(`memory/${name}`);
  return files;
}

/** The text of a memory file named relative to the workspace, or undefined when it is not one. */
export function readMemoryFile(workspace: string, path: string): string | undefined {
  if (!memoryFiles(workspace).includes(path)) return undefined;
  return readUserText(join(workspace, path));
}

export function chunksOf(path: string, text: string): FileChunk[] {
  const lines = text.split('\n');
  const chunks: FileChunk[] = [];
  let start = -1;
  const close = (end: number) => {
    if (start >= 0) chunks.push({ path, startLine: start + 1, endLine: end, text: lines.slice(start, end).join('\n') });
    start = -1;
  };
  lines.forEach((line, i) => {
    if (line.trim() === '') return close(i);
    if (start < 0) start = i;
    else if (i - start >= MAX_LINES) {
      close(i);
      start = i;
    }
  });
  close(lines.length);
  return chunks;
}

/**
 * Full text over the memory files, built again whenever one of them changed (they are small, and the agent edits
 * them with the file tools at any time).
 */
export class MemoryFilesIndex {
  private stamp = '';
  private chunks: FileChunk[] = [];
  private search = new MiniSearch<{ id: number; text: string }>({ fields: ['text'], processTerm });

  constructor(private readonly workspace: string) {}

  find(query: string, limit: number): FileHit[] {
    this.refresh();
    return this.search
      .search(query, { prefix: (term) => term.length > 3 })
      .slice(0, limit)
      .map((r) => ({ ...this.chunks[r.id as number]!, score: r.score }));
  }

  /** Every passage of the memory files as they are now. */
  passages(): FileChunk[] {
    this.refresh();
    return this.chunks;
  }

  private refresh(): void {
    const files = memoryFiles(this.workspace);
    const stamp = files
      .map((f) => {
        try {
          const s = statSync(join(this.workspace, f));
          return `${f}:${s.mtimeMs}:${s.size}`;
        } catch {
          return f;
        }
      })
      .join('|');
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    this.chunks = files.flatMap((f) => chunksOf(f, readUserText(join(this.workspace, f)) ?? ''));
    this.search = new MiniSearch({ fields: ['text'], processTerm });
    this.search.addAll(this.chunks.map((c, id) => ({ id, text: c.text })));
  }
}

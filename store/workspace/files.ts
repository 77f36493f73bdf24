import { readUserText } from '../files/regular-file.js';
import { dirname, join } from 'node:path';
import {
  DirectoryWatches,
  lookAt,
  unchanged,
  type PathLook,
  type WatchedDirectory,
  type WatchOptions,
} from '../watched-directory.js';
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

/**
 * A value made from one file's text (the empty text while the file is missing), made again only when the file's
 * modification time or size changed. Those are looked at only when its directory signals a change or is not
 * watched, or `RECHECK_MS` passed.
 */
class CachedFile<T> {
  private cached: { look: PathLook; value: T } | undefined;

  constructor(
    private readonly path: string,
    private readonly dir: WatchedDirectory,
    private readonly make: (text: string) => T,
  ) {}

  read(): T {
    if (this.cached && unchanged(this.cached.look)) return this.cached.value;
    const { look, stats } = lookAt(this.dir, this.path);
    const value = this.make(stats ? (readUserText(this.path) ?? '') : '');
    this.cached = { look, value };
    return value;
  }
}

/**
 * Reads the prompt files, so that an edit, a delete or a re-create reaches the next request without a restart,
 * while an unchanged file is served from memory: with no `stat` while its directory is watched (`fs.watch`), one
 * `stat` per read where it cannot be. A missing file reads as empty text. `close()` ends the watches.
 */
export class WorkspaceFiles {
  private readonly watches: DirectoryWatches;
  private readonly texts = {} as Record<PromptFile, CachedFile<string>>;
  private readonly doc: CachedFile<AgentDoc>;

  constructor(
    readonly root: string,
    options: WatchOptions = {},
  ) {
    this.watches = new DirectoryWatches(options);
    for (const file of Object.keys(PROMPT_FILES) as PromptFile[])
      this.texts[file] = this.cachedFile(file, (text) => text);
    const agentPath = join(root, PROMPT_FILES.agent);
    this.doc = this.cachedFile('agent', (text) => parseAgentDoc(text, agentPath));
  }

  text(file: PromptFile): string {
    return this.texts[file].read();
  }

  /** `AGENT.md` split into validated frontmatter and body; throws `WorkspaceError` for bad frontmatter. */
  agent(): AgentDoc {
    return this.doc.read();
  }

  close(): void {
    this.watches.close();
  }

  private cachedFile<T>(file: PromptFile, make: (text: string) => T): CachedFile<T> {
    const path = join(this.root, PROMPT_FILES[file]);
    return new CachedFile(path, this.watches.dir(dirname(path)), make);
  }
}

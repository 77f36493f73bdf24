import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { packParts, unpackParts } from './cached-parts.js';
import type { CodeCache } from './code-cache.js';
import { LocatedFiles } from './located-files.js';

/** The entry of the packed file that holds `located` (no part's name: those end in `.cjs`). */
const LOCATED_FILES = '#located-files';

/**
 * Compiles the parts of one run with the cached data the last run left, and writes the cache again only when a part
 * had none or V8 rejected it, or a file search found something new (`located`). Parts this run never loaded keep
 * their data. Once a V8 flag changes, data made from then on would carry the wrong flag hash, so `close()` writes
 * what is pending and lets go of the cache.
 */
export class ScriptCache {
  private stored: Map<string, Buffer>;
  private readonly compiled = new Map<string, Script>();
  private stale = false;
  private closed = false;

  readonly located: LocatedFiles;

  constructor(private readonly file: CodeCache) {
    this.stored = unpackParts(file.read());
    this.located = new LocatedFiles(this.stored.get(LOCATED_FILES));
    this.stored.delete(LOCATED_FILES);
  }

  compile(name: string, path: string): Script {
    const cachedData = this.stored.get(name);
    const script = new Script(readFileSync(path, 'latin1'), { filename: path, cachedData });
    if (this.closed) return script;
    this.compiled.set(name, script);
    if (cachedData === undefined || script.cachedDataRejected === true) this.stale = true;
    return script;
  }

  save(): void {
    if (this.closed || !(this.stale || this.located.unsaved)) return;
    this.file.write(packParts(new Map([...this.stored, ...this.fresh(), [LOCATED_FILES, this.located.serialize()]])));
    this.stale = false;
  }

  close(): void {
    this.save();
    this.closed = true;
    this.stored = new Map();
    this.compiled.clear();
  }

  private *fresh(): Iterable<[string, Buffer]> {
    for (const [name, script] of this.compiled) yield [name, script.createCachedData()];
  }
}

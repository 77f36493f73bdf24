import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { packParts, unpackParts } from './cached-parts.js';
import type { CodeCache } from './code-cache.js';

/**
 * Compiles the parts of one run with the cached data the last run left, and writes the cache again only when a part
 * had none or V8 rejected it. Parts this run never loaded keep their data. Once a V8 flag changes, data made from
 * then on would carry the wrong flag hash, so `close()` writes what is pending and lets go of the cache.
 */
export class ScriptCache {
  private stored: Map<string, Buffer>;
  private readonly compiled = new Map<string, Script>();
  private stale = false;
  private closed = false;

  constructor(private readonly file: CodeCache) {
    this.stored = unpackParts(file.read());
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
    if (this.stale && !this.closed) this.file.write(packParts(new Map([...this.stored, ...this.fresh()])));
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

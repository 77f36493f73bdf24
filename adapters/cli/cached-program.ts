import { subscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cachedDataVersionTag } from 'node:v8';
import { codeCache } from './code-cache.js';
import { V8_FLAGS_CHANGING } from './memory-mode.js';
import type { LocatedFiles } from './located-files.js';
import { ScriptCache } from './script-cache.js';

type PartRequire = ((id: string) => unknown) &
  Pick<NodeJS.Require, 'resolve' | 'cache' | 'extensions' | 'main'> & {
    /** A file found by an earlier run (`LocatedFiles`): the bundle's patched lmdb finds its own file and addons this way. */
    ternLocated: LocatedFiles['file'];
  };

/**
 * What `adapters/cli/bundle.mjs` makes of each part of `tern` (esbuild's chunks): a function expression taking
 * CommonJS's arguments, the URL that stands for `import.meta.url`, and the `import()` for other parts and for
 * packages outside the bundle.
 */
type Part = (
  exports: object,
  require: PartRequire,
  module: { exports: object },
  filename: string,
  dirname: string,
  moduleUrl: string,
  importModule: (specifier: string) => Promise<unknown>,
) => void;

export class PartShapeError extends Error {
  readonly code = 'part_not_a_function';
}

/**
 * Runs the bundled program (`entry` and the parts it loads, all in `dir`) with V8's compiled code from the last
 * run of the same command. A missing, stale or rejected cache costs only the compile. The cache is written at
 * the latest moment V8 can still use it: before the program first changes a V8 flag (the flag hash is part of
 * the cache's key, and `tern gateway` turns on --optimize-for-size once started), or else at a successful exit.
 */
export function runCachedProgram(dir: string, entry: string, programHash: string, argv: string[]): void {
  const cache = new ScriptCache(codeCache(dir, `${commandOf(argv)}-${programHash}-${process.version}-${cachedDataVersionTag()}.bin`));
  const modules = new Map<string, { exports: object }>();
  const load = (name: string): object => {
    const loaded = modules.get(name);
    if (loaded) return loaded.exports;
    const file = join(dir, name);
    const part: unknown = cache.compile(name, file).runInThisContext();
    if (!isPart(part)) throw new PartShapeError(`${file} is not a bundled part of tern; run \`npm run build\` again`);
    // Registered before it runs, as CommonJS does: parts that import each other see the exports made so far.
    const module = { exports: {} };
    modules.set(name, module);
    part(module.exports, require, module, file, dir, pathToFileURL(file).href, importModule);
    return module.exports;
  };
  const require = partRequire(join(dir, entry), load, cache.located);
  // The bin is bundled beside the parts, so its `import()` resolves packages as theirs would.
  const importModule = (specifier: string): Promise<unknown> => (isPartPath(specifier) ? Promise.resolve().then(() => load(specifier.slice(2))) : import(specifier));

  subscribe(V8_FLAGS_CHANGING, () => cache.close());
  process.once('exit', (code) => {
    if (code === 0) cache.save();
  });
  load(entry);
}

/** One cache per command: each compiles a different part of the program. Anything unlike a command name shares one. */
function commandOf(argv: string[]): string {
  const [first] = argv;
  return first !== undefined && /^[a-z][a-z-]{0,31}$/.test(first) ? first : 'tern';
}

/** Parts name each other `./<name>.cjs`; esbuild never leaves another relative path in its output. */
function isPartPath(specifier: string): boolean {
  return specifier.startsWith('./') && specifier.endsWith('.cjs') && !specifier.includes('/', 2);
}

function partRequire(entryFile: string, load: (name: string) => object, located: LocatedFiles): PartRequire {
  const base = createRequire(entryFile);
  const requireOne = (id: string): unknown => (isPartPath(id) ? load(id.slice(2)) : base(id));
  const ternLocated: LocatedFiles['file'] = (key, locate) => located.file(key, locate);
  return Object.assign(requireOne, { resolve: base.resolve, cache: base.cache, extensions: base.extensions, main: base.main, ternLocated });
}

function isPart(value: unknown): value is Part {
  return typeof value === 'function';
}

// Bundles `tern` and `tern-launcher` into dist/adapters/cli/ with esbuild (run by `npm run build`; the
// gateway bench bundles the same way). Start-up cost is mostly Node resolving, reading and compiling
// hundreds of package files, so the pure-JavaScript packages the gateway loads before `/ready` are
// inlined. Packages with native parts, worker files or their own lazy loading stay external (but `tern` inlines
// lmdb's JavaScript, see `inlineLmdb`). `tern` becomes scripts (`*.cjs`) that its CommonJS bin (`main.cjs`, from
// bin.ts) compiles with a V8 code cache; `tern-launcher` stays ES modules.
import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Inlined: what `tern gateway` loads before it is ready. Everything else in `dependencies` stays external. */
const INLINED = ['zod', 'yaml', 'xstate', 'rxjs', 'mitt', 'picomatch', 'ipaddr.js', 'grammy', '@modelcontextprotocol/sdk'];

function externals() {
  const { dependencies } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  return Object.keys(dependencies).filter((name) => !INLINED.includes(name));
}

/** The Telegram channel uses grammY's Bot API client and its errors, not its bot framework (grammY's `exports` map hides these files). */
const GRAMMY_CORE = "export { Api } from './out/core/api.js'; export { GrammyError, HttpError } from './out/core/error.js';";

/**
 * What grammY takes from node-fetch and abort-controller, from Node's own: its default `fetch` (node-fetch, which
 * loads zlib, https and stream classes of its own) is never called, as the Telegram channel passes its own
 * (adapters/channels/bot-api-fetch.ts), and Node's AbortController is the one the global `fetch` (uploads, files
 * from a URL) accepts.
 */
const NODE_OWN = {
  'node-fetch': 'exports.default = (...args) => globalThis.fetch(...args);',
  'abort-controller': 'exports.AbortController = globalThis.AbortController;',
};

/**
 * Parts of inlined packages the CLI never runs, left out so Node need not parse them at every start:
 * rxjs from its ES module build (Node's export condition picks CommonJS, which cannot be tree-shaken);
 * zod's messages in other languages (zod selects English and we never select another); grammY's bot framework
 * (context, composer, filters: half of its code), which the Telegram channel never uses; node-fetch and
 * abort-controller (`NODE_OWN`). grammY's platform file loads https (and with it tls) only to make an agent for
 * an https API root: it now loads it then, so a local Bot API server over http never loads it.
 */
const trimUnused = {
  name: 'trim-unused',
  setup(build) {
    build.onResolve({ filter: /^rxjs$/ }, () => ({ path: `${root}node_modules/rxjs/dist/esm/index.js` }));
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ path, importer }) => (/zod[\\/]v4[\\/]/.test(importer) ? { path, namespace: 'trimmed' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'trimmed' }, () => ({ contents: "export { default as en } from 'zod/v4/locales/en.js';", resolveDir: root }));
    build.onResolve({ filter: /^grammy$/ }, ({ importer }) => (/adapters[\\/]channels[\\/]telegram\.ts$/.test(importer) ? { path: 'grammy', namespace: 'grammy-core' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'grammy-core' }, () => ({ contents: GRAMMY_CORE, resolveDir: `${root}node_modules/grammy`, loader: 'js' }));
    build.onResolve({ filter: /^(node-fetch|abort-controller)$/ }, ({ path, importer }) => (/grammy[\\/]out[\\/]/.test(importer) ? { path, namespace: 'node-own' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'node-own' }, ({ path }) => ({ contents: NODE_OWN[path], loader: 'js' }));
    build.onLoad({ filter: /grammy[\\/]out[\\/]platform\.node\.js$/ }, ({ path }) => ({
      contents: patched(readFileSync(path, 'utf8'), 'const https_1 = require("https");', 'const https_1 = { get Agent() { return require("https").Agent; } };', path),
      loader: 'js',
    }));
  },
};

/**
 * `tern` inlines lmdb's JavaScript (and msgpackr, ordered-binary, weak-lru-cache, extended-iterable with it), so
 * its ~270 KB are code-cached like ours instead of compiled at every start; its native addons stay files in
 * node_modules. lmdb finds its addon from its own file name and msgpackr its extractor (an optional package)
 * by a require from its own folder: both are pointed at where Node resolves those packages from the bundle.
 * Those three searches (and node-gyp-build's choice of each addon) are remembered from run to run by the bin
 * (`require.ternLocated`, adapters/cli/located-files.ts), so node-gyp-build and detect-libc load only when a
 * search runs.
 */
const LMDB_ENTRY = `${root}node_modules/lmdb/dist/index.cjs`;
const LMDB_FILE = "var __filename = require.ternLocated('lmdb', () => { const file = require.resolve('lmdb'); return { file, dir: require('node:path').dirname(file) }; });\n";
const EXTRACTOR_DIR = "require('node:path').dirname(require('node:module').createRequire(require('node:module').createRequire(require.resolve('lmdb')).resolve('msgpackr')).resolve('msgpackr-extract'))";
/** The addon node-gyp-build picks in `dir`, loaded from where an earlier run found it. */
const addonIn = (key, dir) => `require(require.ternLocated(${JSON.stringify(key)}, () => { const dir = ${dir}; return { file: require('node-gyp-build-optional-packages').path(dir), dir }; }))`;

function patched(text, find, replacement, path) {
  if (!text.includes(find)) throw new Error(`${path} no longer contains ${find}: check the lmdb inlining in bundle.mjs`);
  return text.replace(find, replacement);
}

const inlineLmdb = {
  name: 'inline-lmdb',
  setup(build) {
    build.onResolve({ filter: /^lmdb$/ }, () => ({ path: LMDB_ENTRY }));
    build.onLoad({ filter: /[\\/]lmdb[\\/]dist[\\/]index\.cjs$/ }, ({ path }) => ({
      contents: LMDB_FILE + patched(readFileSync(path, 'utf8'), "var loadNAPI = require('node-gyp-build-optional-packages');", `var loadNAPI = (lmdbDir) => ${addonIn('lmdb addon', 'lmdbDir')};`, path),
      loader: 'js',
      resolveDir: dirname(path),
    }));
    build.onLoad({ filter: /[\\/]msgpackr[\\/]dist[\\/]node\.cjs$/ }, ({ path }) => ({
      contents: patched(readFileSync(path, 'utf8'), "require('msgpackr-extract')", addonIn('msgpackr-extract addon', EXTRACTOR_DIR), path),
      loader: 'js',
      resolveDir: dirname(path),
    }));
  },
};

/**
 * Inlined CommonJS packages call require() for Node's own modules, which an ES module lacks: chunks that
 * use it get one. Only those: `import.meta` costs each chunk that touches it a loader callback at start.
 */
const REQUIRE_BANNER = "import { createRequire as __ternCreateRequire } from 'node:module'; const require = __ternCreateRequire(import.meta.url);\n";
const USES_REQUIRE = /(?<![\w$.])require(?![\w$])/;

function withRequire(text) {
  if (!USES_REQUIRE.test(text)) return text;
  const shebang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : '';
  return shebang + REQUIRE_BANNER + text.slice(shebang.length);
}

const shared = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: externals(),
  // Whitespace and syntax only: names stay readable in stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'error',
  write: false,
};

function writeOutputs(outputFiles, edit = (text) => text) {
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, edit(file.text));
  }
}

/** The launcher keeps ES modules: lazily imported parts become chunks beside it. */
async function bundleLauncher(outdir) {
  const { outputFiles } = await build({ ...shared, entryPoints: ['adapters/cli/launcher-main.ts'], outdir, splitting: true, format: 'esm', plugins: [trimUnused] });
  writeOutputs(outputFiles, withRequire);
}

/**
 * The arguments `adapters/cli/cached-program.ts` calls each part of `tern` with. Node 20 gives cached data only
 * to scripts, so the parts are CommonJS: `import.meta.url` becomes a parameter, and so does `import()` (of a
 * part, or of a package outside the bundle: an `import()` in a script V8 took from its cache has no loader to
 * call in Node 20).
 */
const PROGRAM_PARAMETERS = 'exports, require, module, __filename, __dirname, __ternModuleUrl, __ternImport';
const EXTERNAL_IMPORT = 'tern-external-import:';

/** Marks `import()` of an external package so the output can hand it to `__ternImport` (a prefix no package text has). */
const markExternalImports = {
  name: 'mark-external-imports',
  setup(build) {
    const external = new Set(externals());
    build.onResolve({ filter: /^[^./]/ }, ({ path, kind }) => {
      const name = path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0];
      if (kind !== 'dynamic-import' || !(external.has(name) || path.startsWith('node:'))) return undefined;
      return { path: `${EXTERNAL_IMPORT}${path}`, external: true };
    });
  },
};

/** One ES module chunk as a script: CommonJS inside a function, every `import()` handed to `__ternImport`. */
async function asScript(text, partNames) {
  const { code } = await transform(text.replace(/^#!.*\n/, ''), { format: 'cjs', target: 'node20', minifyWhitespace: true, minifySyntax: true });
  // esbuild's transform re-wraps the exports object in getters of getters; parts only read named exports.
  let body = code.replace('module.exports=__toCommonJS(stdin_exports);', 'module.exports=stdin_exports;').replaceAll(`import("${EXTERNAL_IMPORT}`, '__ternImport("');
  for (const name of partNames) body = body.replaceAll(`import("./${name}")`, `__ternImport("./${name}")`);
  // An import() of a path known only at run time (a trusted plugin's entry) goes the same way.
  body = body.replace(/(?<![\w$.])import\((?!["'`])/g, '__ternImport(');
  if (body.includes(EXTERNAL_IMPORT)) throw new Error('an import() of an external package was not handed to __ternImport');
  if (/\bimport\("\.\/|__toESM\(require\("\.\//.test(body)) throw new Error('a part imports another in a way cached-program.ts does not serve');
  return `(function (${PROGRAM_PARAMETERS}) {"use strict";${body}\n})`;
}

/**
 * `tern.cjs` and its parts (`*.cjs`: esbuild's chunks, so a command compiles only what it runs) and `main.cjs`,
 * the bin, which knows the parts' content hash. The bin is CommonJS: an ES module entry would cost the start Node's
 * ES module loader.
 */
async function bundleTern(outdir) {
  const { outputFiles } = await build({
    ...shared,
    external: externals().filter((name) => name !== 'lmdb'),
    entryPoints: { tern: 'adapters/cli/main.ts' },
    outdir,
    splitting: true,
    format: 'esm',
    outExtension: { '.js': '.cjs' },
    define: { 'import.meta.url': '__ternModuleUrl' },
    plugins: [markExternalImports, trimUnused, inlineLmdb],
  });
  const names = outputFiles.map((file) => basename(file.path));
  const parts = await Promise.all(outputFiles.map(async (file) => ({ path: file.path, text: await asScript(file.text, names) })));
  writeOutputs(parts);
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${basename(part.path)}\n${part.text}\n`);
  const bin = await build({
    ...shared,
    entryPoints: { main: 'adapters/cli/bin.ts' },
    outdir,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    define: { TERN_PROGRAM_HASH: JSON.stringify(hash.digest('hex').slice(0, 16)), 'import.meta.dirname': '__dirname' },
  });
  writeOutputs(bin.outputFiles);
}

// `node adapters/cli/bundle.mjs` builds dist/; `node adapters/cli/bundle.mjs DIR` bundles only `tern` into DIR (the bench).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outdir] = process.argv.slice(2);
  if (outdir) {
    await bundleTern(outdir);
  } else {
    rmSync(`${root}dist`, { recursive: true, force: true });
    await bundleTern(`${root}dist/adapters/cli`);
    await bundleLauncher(`${root}dist/adapters/cli`);
    // Chunks look for the built-in skills two folders up, where the unbundled build found them from dist/store.
    cpSync(`${root}skills`, `${root}dist/skills`, { recursive: true });
  }
}

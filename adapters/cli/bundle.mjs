// Bundles `tern` and `tern-launcher` into dist/adapters/cli/ with esbuild (run by `npm run build`; the
// gateway bench bundles the same way). Start-up cost is mostly Node resolving, reading and compiling
// hundreds of package files, so the pure-JavaScript packages the gateway loads before `/ready` are
// inlined. Packages with native parts, worker files or their own lazy loading stay external.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Inlined: what `tern gateway` loads before it is ready. Everything else in `dependencies` stays external. */
const INLINED = ['zod', 'yaml', 'xstate', 'rxjs', 'mitt', 'picomatch', 'ipaddr.js', 'grammy', '@modelcontextprotocol/sdk'];

function externals() {
  const { dependencies } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  return Object.keys(dependencies).filter((name) => !INLINED.includes(name));
}

/**
 * Parts of inlined packages the CLI never runs, left out so Node need not parse them at every start:
 * rxjs from its ES module build (Node's export condition picks CommonJS, which cannot be tree-shaken);
 * zod's messages in other languages (zod selects English and we never select another);
 * whatwg-url (with tr46's Unicode tables, ~300 KB), which grammy's node-fetch takes only where Node
 * has no `URL` of its own (`Url.URL || whatwgUrl.URL`), and Node 20 always has one.
 */
const trimUnused = {
  name: 'trim-unused',
  setup(build) {
    build.onResolve({ filter: /^rxjs$/ }, () => ({ path: `${root}node_modules/rxjs/dist/esm/index.js` }));
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ path, importer }) => (/zod[\\/]v4[\\/]/.test(importer) ? { path, namespace: 'trimmed' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'trimmed' }, () => ({ contents: "export { default as en } from 'zod/v4/locales/en.js';", resolveDir: root }));
    build.onResolve({ filter: /^whatwg-url$/ }, ({ importer }) => (/node-fetch[\\/]/.test(importer) ? { path: 'whatwg-url', namespace: 'unused-url' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'unused-url' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
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

/** Entry points keep their names (the bins); lazily imported commands become chunks beside them. */
async function bundleCli(outdir, entries = ['adapters/cli/main.ts', 'adapters/cli/launcher-main.ts']) {
  const { outputFiles } = await build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externals(),
    plugins: [trimUnused],
    // Whitespace and syntax only: names stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'error',
    write: false,
  });
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, withRequire(file.text));
  }
}

// `node adapters/cli/bundle.mjs` builds dist/; `node adapters/cli/bundle.mjs DIR` bundles only `tern` into DIR (the bench).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outdir] = process.argv.slice(2);
  if (outdir) {
    await bundleCli(outdir, ['adapters/cli/main.ts']);
  } else {
    rmSync(`${root}dist`, { recursive: true, force: true });
    await bundleCli(`${root}dist/adapters/cli`);
    // Chunks look for the built-in skills two folders up, where the unbundled build found them from dist/store.
    cpSync(`${root}skills`, `${root}dist/skills`, { recursive: true });
  }
}

// Bundles `tern` and `tern-launcher` into dist/adapters/cli/ with esbuild (run by `npm run build`; the gateway
// bench and the bundle test bundle the same way into a folder of their own). The output is esbuild's, as it writes
// it: ES modules split into chunks, so a command loads only the code it runs. Pure-JavaScript packages are inlined
// (Node then reads and compiles one file per chunk instead of resolving hundreds); packages with native parts,
// worker files or their own lazy loading stay external and load from node_modules.
import { build } from 'esbuild';
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Inlined: the pure-JavaScript packages the CLI and the gateway run. Everything else in `dependencies` stays external.
 */
const INLINED = [
  'zod',
  'yaml',
  'xstate',
  'rxjs',
  'mitt',
  'picomatch',
  'ipaddr.js',
  'grammy',
  'undici',
  'eventsource-parser',
  'croner',
  '@modelcontextprotocol/sdk',
  // LINE's SDK as an ES module imports its legacy axios client from its index: a second axios, as ES modules, beside
  // the CommonJS one the other channel libraries share (about 7 MB of an idle gateway). Bundled, only the Messaging API
  // client the channel uses is kept (the package declares no side effects).
  '@line/bot-sdk',
  // Feishu's SDK is one 6 MB file whose Chinese doc comments make V8 hold it as a two-byte string (12 MB); bundled,
  // the comments go and the rest is ASCII, about 2 MB.
  '@larksuiteoapi/node-sdk',
  // dingtalk-stream's ES module build imports axios as an ES module too; bundled, it takes the CommonJS one (below).
  'dingtalk-stream',
];

/**
 * Dependencies of inlined packages that other channel libraries load too: one copy, from node_modules. axios is
 * imported as its CommonJS build, the one `require` gives Slack and WeCom (its ES module build is another instance).
 */
const SHARED = ['axios', 'protobufjs'];

function externals() {
  const { dependencies } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  return [...Object.keys(dependencies).filter((name) => !INLINED.includes(name)), ...SHARED];
}

/**
 * Inlined CommonJS packages call `require` for Node's own modules, which an ES module lacks (esbuild's documented
 * remedy).
 */
const REQUIRE =
  "import { createRequire as __ternCreateRequire } from 'node:module'; " +
  'const require = __ternCreateRequire(import.meta.url);';
/** …and `__dirname` (the Feishu SDK looks for its package.json from there, finding none in a bundle). */
const DIRNAME =
  "import { dirname as __ternDirnameOf } from 'node:path';" +
  " import { fileURLToPath as __ternFileURLToPath } from 'node:url';" +
  ' const __ternDirname = __ternDirnameOf(__ternFileURLToPath(import.meta.url));';

const BANNER = `${REQUIRE} ${DIRNAME}`;

/**
 * A chunk with only the banner's parts it uses. esbuild puts the banner on every chunk, and each part costs a chunk
 * that carries it a resolution of a built-in module at load and a call at evaluation: a gateway loads ~66 chunks
 * before `/ready`, and only the few holding inlined CommonJS call `require` (one, Feishu's SDK, reads `__dirname`).
 */
function withBannerItUses(text) {
  const shebang = text.startsWith('#!') ? text.slice(0, text.indexOf('\n') + 1) : '';
  if (!text.startsWith(BANNER, shebang.length)) return text;
  const body = text.slice(shebang.length + BANNER.length);
  const parts = [/\brequire\b/.test(body) ? REQUIRE : '', body.includes('__ternDirname') ? DIRNAME : ''];
  return `${shebang}${parts.filter(Boolean).join(' ')}${body}`;
}

/**
 * `node:http` through `require`. An ES module import of it builds its module namespace, which reads every property of
 * the module: on Node 22 and later that includes the lazy `WebSocket`, `CloseEvent` and `MessageEvent`, which load
 * Node's own copy of undici (13 MB of a process on Node 24, and the time to compile it), which nothing here uses.
 * The named exports are its plain data properties; the rest (`globalAgent`, say) is on the default export.
 */
const httpThroughRequire = {
  name: 'http-through-require',
  setup(build) {
    // Only imports: a `require` of inlined CommonJS (undici's) gets the module itself, as it does unbundled.
    build.onResolve({ filter: /^(node:)?http$/ }, (args) =>
      args.kind === 'import-statement' || args.kind === 'dynamic-import'
        ? { path: 'http', namespace: 'tern-http' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'tern-http' }, () => {
      const http = createRequire(import.meta.url)('node:http');
      const names = Object.keys(http).filter((name) => 'value' in Object.getOwnPropertyDescriptor(http, name));
      return {
        contents:
          "import { createRequire } from 'node:module';" +
          "const http = createRequire(import.meta.url)('node:http'); export default http;" +
          `export const { ${names.join(', ')} } = http;`,
        loader: 'js',
      };
    });
  },
};

/** `main.js` (`tern`) and `launcher-main.js` (`tern-launcher`) and their shared chunks, in `outdir`. */
export async function bundle(outdir) {
  const { outputFiles } = await build({
    absWorkingDir: root,
    entryPoints: { main: 'adapters/cli/bin.ts', 'launcher-main': 'adapters/cli/launcher-main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: externals(),
    // rxjs's exports map gives the `node` condition its CommonJS build, whose index runs every operator's module;
    // the ES module build the same package publishes lets esbuild keep only the few the bus uses.
    alias: { rxjs: './node_modules/rxjs/dist/esm/index.js', axios: 'axios/dist/node/axios.cjs' },
    plugins: [httpThroughRequire],
    banner: { js: BANNER },
    define: { __dirname: '__ternDirname' },
    // Whitespace and syntax only: names stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'error',
    write: false,
  });
  for (const file of outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, file.path.endsWith('.js') ? withBannerItUses(file.text) : file.contents);
  }
  chmodSync(`${outdir}/main.js`, 0o755);
  chmodSync(`${outdir}/launcher-main.js`, 0o755);
}

// `node adapters/cli/bundle.mjs` builds dist/; `node adapters/cli/bundle.mjs DIR` bundles into DIR only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [outdir] = process.argv.slice(2);
  if (outdir) {
    await bundle(outdir);
  } else {
    rmSync(`${root}dist`, { recursive: true, force: true });
    await bundle(`${root}dist/adapters/cli`);
    // The built-in skills are looked up two folders above the code, as from store/ in the sources.
    cpSync(`${root}skills`, `${root}dist/skills`, { recursive: true });
  }
}

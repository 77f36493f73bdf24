#!/usr/bin/env -S node --v8-pool-size=1
// The `tern` bin of the build (`adapters/cli/bundle.mjs`, as CommonJS `main.cjs`, where `import.meta.dirname` becomes
// `__dirname`): runs the bundled CLI with a V8 code cache.
// One V8 worker thread keeps an idle `tern gateway` ~2.5 MB smaller. No V8 flags here: any V8 flag on the command
// line makes Node 20 reject the code cache of its own modules (adapters/cli/memory-mode.ts); ours is keyed by them.
import { runCachedProgram } from './cached-program.js';

/** The bundled parts' content hash, set by the bundler: a cache never outlives the code it was made from. */
declare const TERN_PROGRAM_HASH: string;

runCachedProgram(import.meta.dirname, 'tern.cjs', TERN_PROGRAM_HASH, process.argv.slice(2));

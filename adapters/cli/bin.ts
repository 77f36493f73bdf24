#!/usr/bin/env -S node --v8-pool-size=1
// The `tern` bin of the build (`adapters/cli/bundle.mjs` writes it as `main.js`). One V8 worker thread keeps an idle
// `tern gateway` smaller. Node 22.1 and later keep the compiled code of the program on disk between runs
// (`module.enableCompileCache`); on older Node the program compiles at every start.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./main.js');

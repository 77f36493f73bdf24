#!/usr/bin/env -S MALLOC_TRIM_THRESHOLD_=131072 node --v8-pool-size=1
// The `tern` bin of the build (`adapters/cli/bundle.mjs` writes it as `main.js`). One V8 worker thread keeps an idle
// `tern gateway` smaller. glibc raises its trim threshold after the start frees large blocks, and one thread's malloc
// arena then kept ~8 MB it no longer used in about one idle gateway of four (86 MB instead of 78); a fixed threshold
// (glibc's default value, set, which stops that raising) returns free memory at the top of every arena. Node 22.1 and
// later keep the compiled code of the program on disk between runs (`module.enableCompileCache`); on older Node the
// program compiles at every start.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./main.js');

import { channel } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';

/**
 * Published just before a V8 flag changes: V8 code cached after it would never be accepted again. A diagnostics
 * channel because the bin that keeps the code cache and the program it runs are bundled apart (named channels are
 * one per process).
 */
export const V8_FLAGS_CHANGING = 'tern:v8-flags-changing';

/**
 * A V8 flag on the command line changes V8's flag hash, and Node 20 then rejects the code cache built into it
 * for its own modules: loading http, https, net, zlib, crypto, stream and worker_threads took 23–28 ms instead
 * of 5–8 ms, and `tern gateway` spent ~100 ms more CPU before `/ready`. So the process starts with V8's defaults
 * and turns to V8's memory-saving heuristics once the gateway has started and its engine has loaded (later module
 * loads compile without the cache, which is then the smaller cost). Under them the young generation that the start
 * grew to 16 MB semi-spaces shrinks back at its next collections (~104 MB → 77–78 MB RSS after 60 s idle), and with
 * a growth factor of 1 it stays at its smallest (69.6–69.8 MB): the trade the former `--max-semi-space-size=1`
 * made, more frequent young collections under load for a smaller idle process.
 */
export function preferMemoryOverSpeed(): void {
  channel(V8_FLAGS_CHANGING).publish(undefined);
  setFlagsFromString('--optimize-for-size --semi-space-growth-factor=1');
}

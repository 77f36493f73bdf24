import { setFlagsFromString } from 'node:v8';

/**
 * A V8 flag on the command line changes V8's flag hash, and Node then rejects the code cache built into it for its
 * own modules, which makes every start slower. So `tern gateway` starts with V8's defaults and switches to V8's
 * memory-saving heuristics once its engine has loaded: the young generation the start grew shrinks back and stays
 * small, which trades more frequent young collections under load for a smaller idle gateway (the RSS the README
 * promises).
 */
export function preferMemoryOverSpeed(): void {
  setFlagsFromString('--optimize-for-size --semi-space-growth-factor=1');
}

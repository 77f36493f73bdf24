import { setFlagsFromString } from 'node:v8';

let loading: Promise<typeof import('undici')> | undefined;

/**
 * undici, loaded by the first request: a command that sends none (a turn handed to the gateway, `tern status`) does
 * not compile its 700 KB, and a gateway compiles it with its first channel's request (Telegram's `getMe`).
 *
 * Its HTTP parser is WebAssembly. V8 runs it at once from a quick baseline build and recompiles its large parsing
 * function with the optimizing compiler on the worker thread; a process cannot exit while that thread is in a task,
 * so a one-shot `tern agent -m` waited for a compilation whose result it never used. The baseline code parses the few
 * answers of a turn, or a gateway's long polls, at no cost anyone sees. Set here rather than on the command line:
 * a V8 flag given at start changes the flag hash Node checks its built-in code cache against.
 */
export function undici(): Promise<typeof import('undici')> {
  loading ??= import('undici').then((imported) => {
    setFlagsFromString('--liftoff-only');
    // The bundle hands the CommonJS package over as `default` alone; Node's own loader names its exports too.
    return (imported as unknown as { default?: typeof imported }).default ?? imported;
  });
  return loading;
}

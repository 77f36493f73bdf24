import { setFlagsFromString } from 'node:v8';
import type { Agent, Dispatcher } from 'undici';

/**
 * What a direct request needs: the agent and `request`, without `fetch` (nor the proxy agents: see `dispatchers.ts`).
 */
export interface UndiciCore {
  Agent: typeof Agent;
  /** undici's `request` as `Dispatcher#request` is: on `this`, the origin and path apart. */
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}

/**
 * Its HTTP parser is WebAssembly. V8 runs it at once from a quick baseline build and recompiles its large parsing
 * function with the optimizing compiler on the worker thread; a process cannot exit while that thread is in a task,
 * so a one-shot `tern agent -m` waited for a compilation whose result it never used. The baseline code parses the few
 * answers of a turn, or a gateway's long polls, at no cost anyone sees. Set here rather than on the command line:
 * a V8 flag given at start changes the flag hash Node checks its built-in code cache against.
 */
function baselineParser(): void {
  setFlagsFromString('--liftoff-only');
}

let loadingCore: Promise<UndiciCore> | undefined;
let loading: Promise<typeof import('undici')> | undefined;

/**
 * undici's `Agent` and `request`, loaded by the first request: a command that sends none (a turn handed to the
 * gateway, `tern status`) does not compile them, and a gateway loads them with its first channel's request
 * (Telegram's `getMe`). These modules alone, not the package's index: the index also loads `fetch`, WebSocket, the
 * cache and the mocks, and its cookie module reads `globalThis.Headers`, which makes Node load its own copy of undici
 * as well; together that is twice the code and a few MB of an idle gateway for what only an upload or a proxy
 * uses (`undici()` below). Bundled, a module that moved is a build error, not a failure at run time.
 */
export function undiciCore(): Promise<UndiciCore> {
  loadingCore ??= Promise.all([import('undici/lib/dispatcher/agent.js'), import('undici/lib/api/api-request.js')]).then(
    ([agent, request]) => {
      baselineParser();
      return { Agent: agent.default, request: request.default };
    },
  );
  return loadingCore;
}

/** The whole of undici, for its `fetch` (`fetchOn`), loaded by the first call that needs it. */
export function undici(): Promise<typeof import('undici')> {
  loading ??= import('undici').then((imported) => {
    baselineParser();
    // The bundle hands the CommonJS package over as `default` alone; Node's own loader names its exports too.
    return (imported as unknown as { default?: typeof imported }).default ?? imported;
  });
  return loading;
}

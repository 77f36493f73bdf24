import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';

/** What every request needs of undici: its dispatchers and `request`. */
export interface UndiciCore {
  Agent: typeof import('undici').Agent;
  ProxyAgent: typeof import('undici').ProxyAgent;
  EnvHttpProxyAgent: typeof import('undici').EnvHttpProxyAgent;
  /** undici's `request` on `dispatcher`; `options` name the origin and the path apart, as its dispatchers take them. */
  request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}

// The bundle hands a CommonJS module over as `default` (with its exports named too); Node's own loader as `default`.
const loaded = <T>(imported: { default: T }): T => imported.default;

let core: Promise<UndiciCore> | undefined;
let full: Promise<typeof import('undici')> | undefined;

/**
 * Its HTTP parser is WebAssembly. V8 runs it at once from a quick baseline build and recompiles its large parsing
 * function with the optimizing compiler on the worker thread; a process cannot exit while that thread is in a task,
 * so a one-shot `tern agent -m` waited for a compilation whose result it never used. The baseline code parses the few
 * answers of a turn, or a gateway's long polls, at no cost anyone sees. Set here rather than on the command line:
 * a V8 flag given at start changes the flag hash Node checks its built-in code cache against.
 */
const baselineWasm = <T>(value: T): T => {
  setFlagsFromString('--liftoff-only');
  return value;
};

/**
 * undici's dispatchers and `request`, loaded by the first request: a command that sends none (a turn handed to the
 * gateway, `tern status`) does not compile them. Loaded from undici's own files rather than its entry point, which
 * also builds fetch, WebSocket, its caches and mocks: a one-shot turn compiles about half of the 730 KB.
 */
export function undiciCore(): Promise<UndiciCore> {
  core ??= Promise.all([
    import('undici/lib/dispatcher/agent.js'),
    import('undici/lib/dispatcher/proxy-agent.js'),
    import('undici/lib/dispatcher/env-http-proxy-agent.js'),
    import('undici/lib/api/index.js'),
    import('undici/lib/dispatcher/dispatcher.js'),
  ]).then(([agent, proxyAgent, envHttpProxyAgent, api, dispatcher]) => {
    // What undici's entry point does on load: its proxy agents tunnel with the dispatchers' own `connect`.
    Object.assign(loaded(dispatcher).prototype, loaded(api));
    return baselineWasm({
      Agent: loaded(agent),
      ProxyAgent: loaded(proxyAgent),
      EnvHttpProxyAgent: loaded(envHttpProxyAgent),
      request: (dispatcher, options) => dispatcher.request(options),
    });
  });
  return core;
}

/** All of undici, for its `fetch` (grammY's Bot API client, the MCP SDK's HTTP transports); loaded by the first. */
export function undici(): Promise<typeof import('undici')> {
  full ??= import('undici').then((imported) =>
    // The bundle hands the CommonJS package over as `default` alone; Node's own loader names its exports too.
    baselineWasm((imported as unknown as { default?: typeof imported }).default ?? imported),
  );
  return full;
}

// undici publishes types for its entry point alone; these are the files of its lib that `undici.ts` loads by path.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent;
  export default Agent;
}
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  const ProxyAgent: typeof import('undici').ProxyAgent;
  export default ProxyAgent;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  const EnvHttpProxyAgent: typeof import('undici').EnvHttpProxyAgent;
  export default EnvHttpProxyAgent;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: typeof import('undici').Dispatcher;
  export default Dispatcher;
}

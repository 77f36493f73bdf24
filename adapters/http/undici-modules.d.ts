// The undici modules `undici.ts` loads on their own (see `undiciCore` for why): each exports one value, which the
// package's index re-exports, so they are typed as the index types that value.
declare module 'undici/lib/dispatcher/agent.js' {
  const Agent: typeof import('undici').Agent;
  export default Agent;
}
declare module 'undici/lib/api/api-request.js' {
  const request: import('./undici.js').UndiciCore['request'];
  export default request;
}

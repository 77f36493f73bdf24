export { McpManager, type McpManagerDeps, type McpServerStatus } from './manager.js';
export type { ConnectionState, Backoff } from './connection-state.js';
export { listMcpText, showMcpText } from './chat-views.js';

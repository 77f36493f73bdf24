export type { McpTool } from './mcp-tool.js';
export {
  mcpConfigProblems,
  McpConfigError,
  DEFAULT_MCP,
  type McpOptions,
  type McpServerConfig,
  type McpDiscoveryOptions,
  type McpOAuthConfig,
} from './options.js';
export { mcpOptionsFromConfig } from './from-config.js';
export { discoverySearchTools, BM25_TOOL, REGEX_TOOL, type DiscoveryHooks } from './search-tools.js';
export { McpLoginRequiredError } from './oauth-provider.js';

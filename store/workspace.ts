export { ensureWorkspace } from './workspace/layout.js';
export { WorkspaceFiles, PROMPT_FILES, type PromptFile } from './workspace/files.js';
export {
  parseAgentDoc,
  agentFrontmatterSchema,
  type AgentDoc,
  type AgentFrontmatter,
} from './workspace/frontmatter.js';
export { WorkspaceError, type WorkspaceErrorCode } from './workspace/errors.js';
export { agentWorkspace, agentWorkspaces, ensureAgentWorkspace } from './workspace/agent-workspace.js';

import { appendFileTool } from './fs/append-file.js';
import { editFileTool } from './fs/edit-file.js';
import { listDirTool } from './fs/list-dir.js';
import { readFileBytesTool } from './fs/read-file-bytes.js';
import { readFileLinesTool } from './fs/read-file-lines.js';
import { searchFilesTool } from './fs/search-files.js';
import { writeFileTool } from './fs/write-file.js';
import { execTool } from './exec/exec-tool.js';
import { webSearchTool } from './web/search/web-search.js';
import { webFetchTool } from './web/web-fetch.js';
import { loadImageTool } from './messaging/load-image-tool.js';
import { messageTool } from './messaging/message-tool.js';
import { sendFileTool } from './messaging/send-file-tool.js';
import {
  DEFAULT_EXEC,
  DEFAULT_FETCH,
  DEFAULT_FILTER,
  DEFAULT_MESSAGING,
  DEFAULT_READ_FILE,
  DEFAULT_SEARCH_FILES,
  DEFAULT_WEB_SEARCH,
  type ExecOptions,
  type FetchOptions,
  type FilterOptions,
  type MessagingOptions,
  type ReadFileOptions,
  type SandboxPolicy,
  type SearchFilesOptions,
  type WebSearchOptions,
} from './options.js';
import { ToolRegistry } from './registry.js';
import { Sandbox } from './sandbox/sandbox.js';

export interface ToolsOptions {
  sandbox: SandboxPolicy;
  readFile?: Partial<ReadFileOptions>;
  searchFiles?: Partial<SearchFilesOptions>;
  exec?: Partial<ExecOptions>;
  fetch?: Partial<FetchOptions>;
  search?: Partial<WebSearchOptions>;
  filter?: Partial<FilterOptions>;
  messaging?: Partial<MessagingOptions>;
}

/** The registry of one agent: exactly the enabled tools, all under one sandbox and one output filter. */
export function buildTools(options: ToolsOptions): ToolRegistry {
  const sandbox = new Sandbox(options.sandbox);
  const readFile = { ...DEFAULT_READ_FILE, ...options.readFile };
  const searchFiles = { ...DEFAULT_SEARCH_FILES, ...options.searchFiles };
  const exec = { ...DEFAULT_EXEC, ...options.exec };
  const fetch = { ...DEFAULT_FETCH, ...options.fetch };
  const registry = new ToolRegistry({ ...DEFAULT_FILTER, ...options.filter }, sandbox.workspace);
  if (readFile.enabled) {
    registry.register(readFile.mode === 'lines' ? readFileLinesTool(sandbox, readFile) : readFileBytesTool(sandbox, readFile));
  }
  registry.register(writeFileTool(sandbox)).register(editFileTool(sandbox)).register(appendFileTool(sandbox)).register(listDirTool(sandbox));
  if (searchFiles.enabled) registry.register(searchFilesTool(sandbox, searchFiles));
  if (exec.enabled) registry.register(execTool(sandbox, exec));
  const search = webSearchTool({ ...DEFAULT_WEB_SEARCH, ...options.search });
  if (search) registry.register(search);
  if (fetch.enabled) registry.register(webFetchTool(fetch));
  const messaging = { ...DEFAULT_MESSAGING, ...options.messaging };
  if (messaging.send && messaging.messageEnabled) registry.register(messageTool(sandbox, messaging.send, messaging.mediaEnabled));
  if (messaging.send && messaging.sendFileEnabled) registry.register(sendFileTool(sandbox, messaging.send));
  if (messaging.loadImageEnabled) registry.register(loadImageTool(sandbox));
  return registry;
}

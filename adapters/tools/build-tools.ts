import { appendFileTool } from './fs/append-file.js';
import { editFileTool } from './fs/edit-file.js';
import { listDirTool } from './fs/list-dir.js';
import { readFileBytesTool } from './fs/read-file-bytes.js';
import { readFileLinesTool } from './fs/read-file-lines.js';
import { searchFilesTool } from './fs/search-files.js';
import { writeFileTool } from './fs/write-file.js';
import { cronTool, type CronToolOptions } from './cron/cron-tool.js';
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
import { ToolError } from './tool.js';

export interface ToolsOptions {
  sandbox: SandboxPolicy;
  readFile?: Partial<ReadFileOptions>;
  searchFiles?: Partial<SearchFilesOptions>;
  exec?: Partial<ExecOptions>;
  fetch?: Partial<FetchOptions>;
  search?: Partial<WebSearchOptions>;
  filter?: Partial<FilterOptions>;
  messaging?: Partial<MessagingOptions>;
  cron?: CronToolOptions;
  /** Tools not offered whoever registers them (`tools.<tool>.enabled: false`). */
  disabled?: readonly string[];
}

/** Enumerated options are checked here too: the lead's config mapping may pass any string through. */
function oneOf<T extends string>(field: string, value: T, allowed: readonly T[]): T {
  if (!allowed.includes(value))
    throw new ToolError(
      'invalid_option',
      `${field} must be ${allowed.map((a) => `"${a}"`).join(' or ')}, got "${String(value)}"`,
    );
  return value;
}

function registerFileTools(registry: ToolRegistry, sandbox: Sandbox, options: ToolsOptions): void {
  const readFile = { ...DEFAULT_READ_FILE, ...options.readFile };
  const searchFiles = { ...DEFAULT_SEARCH_FILES, ...options.searchFiles };
  if (readFile.enabled) {
    const mode = oneOf('tools.read_file.mode', readFile.mode, ['bytes', 'lines']);
    registry.register(mode === 'lines' ? readFileLinesTool(sandbox, readFile) : readFileBytesTool(sandbox, readFile));
  }
  registry
    .register(writeFileTool(sandbox))
    .register(editFileTool(sandbox))
    .register(appendFileTool(sandbox))
    .register(listDirTool(sandbox));
  if (searchFiles.enabled) registry.register(searchFilesTool(sandbox, searchFiles));
}

function registerWebTools(registry: ToolRegistry, options: ToolsOptions): void {
  const search = webSearchTool({ ...DEFAULT_WEB_SEARCH, ...options.search });
  if (search) registry.register(search);
  const fetch = { ...DEFAULT_FETCH, ...options.fetch };
  oneOf('tools.web.fetch.format', fetch.format, ['plaintext', 'markdown']);
  if (fetch.enabled) registry.register(webFetchTool(fetch));
}

/** `message` and `send_file` need a way to send; without one they are left out rather than failing later. */
function registerMessaging(registry: ToolRegistry, sandbox: Sandbox, options: ToolsOptions): void {
  const messaging = { ...DEFAULT_MESSAGING, ...options.messaging };
  if (messaging.send && messaging.messageEnabled)
    registry.register(messageTool(sandbox, messaging.send, messaging.mediaEnabled));
  if (messaging.send && messaging.sendFileEnabled) registry.register(sendFileTool(sandbox, messaging.send));
  if (messaging.loadImageEnabled) registry.register(loadImageTool(sandbox));
}

/**
 * The registry of one agent: exactly the enabled tools, all under one sandbox and one output filter.
 * A bad option throws a `ToolError` naming the config field.
 */
export function buildTools(options: ToolsOptions): ToolRegistry {
  const sandbox = new Sandbox(options.sandbox);
  const registry = new ToolRegistry(
    { ...DEFAULT_FILTER, ...options.filter },
    sandbox.workspace,
    undefined,
    new Set(options.disabled),
  );
  registerFileTools(registry, sandbox, options);
  const exec = { ...DEFAULT_EXEC, ...options.exec };
  if (exec.enabled) registry.register(execTool(sandbox, exec));
  registerWebTools(registry, options);
  registerMessaging(registry, sandbox, options);
  if (options.cron?.enabled) registry.register(cronTool(options.cron, sandbox, exec));
  return registry;
}

/**
 * What the tools need to know, in plain shapes. The config layer maps `tools.*` and
 * `agents.defaults.restrict_to_workspace` onto these; the tools never read the config themselves.
 */
import type { LookupFunction } from 'node:net';
import type { IsolationMode } from './exec/isolation.js';
import type { ExecLimits } from './exec/start-script.js';
import type { ExposePath } from './sandbox/bwrap-plan.js';
import type { ToolMedia } from './tool.js';

export interface SandboxPolicy {
  /** The agent's workspace; relative paths resolve against it. */
  workspace: string;
  restrictToWorkspace: boolean;
  allowReadPaths: string[];
  allowWritePaths: string[];
  /** The runtime's home root (`AGENT_HOME`), where `auth.json` and friends live. */
  home: string;
  /** The user's home directory, for `~`. */
  userHome: string;
  /** The coding tool's home (`CODEX_HOME`, else `~/.codex`), whose `auth.json` is protected. */
  codingToolHome: string;
}

export type ReadFileMode = 'bytes' | 'lines';

export interface ReadFileOptions {
  enabled: boolean;
  mode: ReadFileMode;
  maxReadFileSize: number;
}

export interface SearchFilesOptions {
  enabled: boolean;
  /** Matches per page at most, whatever the model asks for. */
  maxMatches: number;
  /** Files larger than this are not scanned for content. */
  maxFileBytes: number;
  /** Characters of output per call at most. */
  maxOutputChars: number;
  timeBudgetMs: number;
}

/** Refusals are logged without the command line: tool-call logs never carry argument values. */
export type ExecLogger = (entry: { level: 'error'; tool: string; message: string }) => void;

export interface ExecOptions {
  enabled: boolean;
  allowRemote: boolean;
  enableDenyPatterns: boolean;
  customDenyPatterns: string[];
  customAllowPatterns: string[];
  timeoutMs: number;
  /** Bytes of combined stdout and stderr kept; the rest is cut with a note. */
  maxOutputBytes: number;
  /** Refusals are logged here at error level. */
  log: ExecLogger;
  /**
   * `tools.exec.isolation`: run each command inside bubblewrap (`auto` when it works here, `bwrap` always, `off`
   * never).
   */
  isolation: IsolationMode;
  /** Extra host folders shown to isolated commands. */
  exposePaths: ExposePath[];
  /** `tools.exec.network`: false cuts isolated commands off the network; true gives them one of their own. */
  network: boolean;
  /** `tools.exec.limits`: processes, memory and file size inside the sandbox. */
  limits: ExecLimits;
  /** The bubblewrap program. */
  bwrap: string;
  /** The program that connects an isolated command's network. */
  slirp4netns: string;
}

export interface FetchOptions {
  enabled: boolean;
  fetchLimitBytes: number;
  format: 'plaintext' | 'markdown';
  /** Hosts (exact name or IP) or CIDR ranges that may be fetched although private. */
  privateHostWhitelist: string[];
  timeoutMs: number;
  maxRedirects: number;
  /** DNS resolution; tests inject one so a name can resolve to loopback. */
  lookup?: LookupFunction;
  /** `tools.web.proxy`: an http(s) proxy URL; absent, the environment's `HTTP(S)_PROXY` / `NO_PROXY`. */
  proxy?: string;
}

export interface FilterOptions {
  enabled: boolean;
  /** Results shorter than this are not filtered. */
  minLength: number;
  /** Known secret values (API keys, tokens) to mask wherever they appear. */
  secrets: string[];
  /** Longer results (in Unicode characters) become a workspace artifact. */
  maxInlineTextChars: number;
}

export const SEARCH_ENGINES = [
  'brave',
  'duckduckgo',
  'perplexity',
  'baidu_search',
  'tavily',
  'kagi',
  'keenable',
  'exa',
  'searxng',
  'glm_search',
  'gemini',
  'sogou',
] as const;
export type SearchEngineName = (typeof SEARCH_ENGINES)[number];

export interface SearchEngineOptions {
  enabled: boolean;
  apiKey?: string;
  /** Rotated round-robin; takes priority over `apiKey`. */
  apiKeys?: string[];
  baseUrl?: string;
  maxResults: number;
  /** perplexity, gemini: the model answering. */
  model?: string;
  /** glm_search: which of the vendor's engines. */
  searchEngine?: string;
}

export interface WebSearchOptions {
  /** The engine block to use (`tools.web.provider`); else the first enabled, usable one. */
  provider?: SearchEngineName;
  engines: Partial<Record<SearchEngineName, Partial<SearchEngineOptions>>>;
  timeoutMs: number;
  /** `tools.web.proxy`, as for `web_fetch`. */
  proxy?: string;
}

export type SendTarget = { channel: string; chat: string };
/**
 * What became of a text sent to a chat, so a tool's result never claims more than happened: out in the chat; handed to
 * the cluster member running its channel account `to` (queued there, not yet out); or not delivered, because this
 * process reaches no channel (`tern tool`). A send that fails (no such channel, the platform refused) throws instead.
 */
export type SendOutcome =
  | { kind: 'sent' }
  | { kind: 'relayed'; to: string }
  | { kind: 'not_delivered'; reason: string };
export type SendFunction = (target: SendTarget, text: string, media: ToolMedia[]) => Promise<SendOutcome>;

export interface MessagingOptions {
  messageEnabled: boolean;
  mediaEnabled: boolean;
  sendFileEnabled: boolean;
  loadImageEnabled: boolean;
  send?: SendFunction;
}

export const DEFAULT_READ_FILE: ReadFileOptions = { enabled: true, mode: 'bytes', maxReadFileSize: 65536 };

export const DEFAULT_SEARCH_FILES: SearchFilesOptions = {
  enabled: true,
  maxMatches: 200,
  maxFileBytes: 1024 * 1024,
  maxOutputChars: 32_000,
  timeBudgetMs: 10_000,
};

export const DEFAULT_EXEC: ExecOptions = {
  enabled: true,
  allowRemote: false,
  enableDenyPatterns: true,
  customDenyPatterns: [],
  customAllowPatterns: [],
  timeoutMs: 60_000,
  maxOutputBytes: 64 * 1024,
  log: (entry) => process.stderr.write(`${JSON.stringify(entry)}\n`),
  isolation: 'auto',
  exposePaths: [],
  network: true,
  limits: { processes: 256, memoryBytes: 1024 * 1024 * 1024, fileSizeBytes: 1024 * 1024 * 1024 },
  bwrap: 'bwrap',
  slirp4netns: 'slirp4netns',
};

export const DEFAULT_FETCH: FetchOptions = {
  enabled: true,
  fetchLimitBytes: 10_485_760,
  format: 'plaintext',
  privateHostWhitelist: [],
  timeoutMs: 30_000,
  maxRedirects: 5,
};

export const DEFAULT_WEB_SEARCH: WebSearchOptions = {
  engines: { duckduckgo: { enabled: true } },
  timeoutMs: 20_000,
};

export const DEFAULT_FILTER: FilterOptions = { enabled: true, minLength: 8, secrets: [], maxInlineTextChars: 32_000 };

export const DEFAULT_MESSAGING: MessagingOptions = {
  messageEnabled: true,
  mediaEnabled: false,
  sendFileEnabled: true,
  loadImageEnabled: true,
};

export function defaultSandbox(
  workspace: string,
  home: string,
  userHome: string,
  codingToolHome?: string,
): SandboxPolicy {
  return {
    workspace,
    restrictToWorkspace: true,
    allowReadPaths: [],
    allowWritePaths: [],
    home,
    userHome,
    codingToolHome: codingToolHome ?? `${userHome}/.codex`,
  };
}

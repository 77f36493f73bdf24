import { homedir } from 'node:os';
import type { ToolsOptions } from '../../adapters/tools/build-tools.js';
import { defaultSandbox, type ExecLogger, type SendFunction } from '../../adapters/tools/options.js';
import { runtimeSecrets, type Config } from '../../store/config/index.js';
import { execIsolation } from '../../store/config/schema/tools/exec.js';
import { expandHome } from '../../store/paths.js';
import { cronToolOptions } from '../cron/tool-options.js';

const MIB = 1024 * 1024;

/** The tools block of the config as the tools take it; one policy for every turn of every agent. */
export function toolsOptions(
  config: Config,
  workspace: string,
  home: string,
  env: NodeJS.ProcessEnv,
  log: ExecLogger,
  send?: SendFunction,
): ToolsOptions {
  const tools = config.tools;
  const sandbox = defaultSandbox(workspace, home, homedir(), env.CODEX_HOME?.trim() || undefined);
  const isolation = execIsolation(tools.exec);
  return {
    sandbox: {
      ...sandbox,
      restrictToWorkspace: config.agents.defaults.restrict_to_workspace,
      allowReadPaths: tools.allow_read_paths.map((path) => expandHome(path)),
      allowWritePaths: tools.allow_write_paths.map((path) => expandHome(path)),
    },
    readFile: {
      enabled: tools.read_file.enabled,
      mode: tools.read_file.mode,
      maxReadFileSize: tools.read_file.max_read_file_size,
    },
    searchFiles: { enabled: tools.search_files.enabled },
    exec: {
      enabled: tools.exec.enabled,
      allowRemote: tools.exec.allow_remote,
      enableDenyPatterns: tools.exec.enable_deny_patterns,
      customDenyPatterns: tools.exec.custom_deny_patterns,
      customAllowPatterns: tools.exec.custom_allow_patterns,
      ...(tools.exec.timeout_seconds > 0 ? { timeoutMs: tools.exec.timeout_seconds * 1000 } : {}),
      log,
      isolation: isolation.mode,
      exposePaths: isolation.expose.map((path) => ({
        ...path,
        source: expandHome(path.source),
        target: expandHome(path.target),
      })),
      network: tools.exec.network,
      limits: {
        processes: tools.exec.limits.processes,
        memoryBytes: tools.exec.limits.memory_mb * MIB,
        fileSizeBytes: tools.exec.limits.file_size_mb * MIB,
      },
    },
    fetch: {
      enabled: tools.web.fetch.enabled,
      fetchLimitBytes: tools.web.fetch_limit_bytes,
      format: tools.web.format,
      privateHostWhitelist: tools.web.private_host_whitelist,
      ...(tools.web.proxy ? { proxy: tools.web.proxy } : {}),
    },
    messaging: {
      messageEnabled: tools.message.enabled,
      mediaEnabled: tools.message.media_enabled,
      sendFileEnabled: tools.send_file.enabled,
      ...(send ? { send } : {}),
    },
    cron: cronToolOptions(config),
    disabled: disabledTools(tools),
    search: searchOptions(tools.web),
    filter: {
      enabled: tools.filter_sensitive_data,
      minLength: tools.filter_min_length,
      secrets: runtimeSecrets(config),
      maxInlineTextChars: tools.mcp.max_inline_text_chars,
    },
  };
}

type WebConfig = Config['tools']['web'];
const reveal = (secret: { reveal(): string } | undefined) => secret?.reveal();

/** The engine blocks of `tools.web` as the web_search tool takes them (keys revealed only here). */
export function searchOptions(web: WebConfig): NonNullable<ToolsOptions['search']> {
  if (!web.enabled) return { engines: {} };
  const keyed = (block: {
    enabled: boolean;
    max_results: number;
    api_key?: { reveal(): string };
    api_keys?: Array<{ reveal(): string }>;
    base_url?: string;
  }) => ({
    enabled: block.enabled,
    maxResults: block.max_results,
    apiKey: reveal(block.api_key),
    apiKeys: block.api_keys?.map((k) => k.reveal()),
    baseUrl: block.base_url,
  });
  return {
    provider: web.provider,
    ...(web.proxy ? { proxy: web.proxy } : {}),
    engines: {
      brave: keyed(web.brave),
      duckduckgo: keyed(web.duckduckgo),
      perplexity: { ...keyed(web.perplexity), model: web.perplexity.model },
      baidu_search: keyed(web.baidu_search),
      tavily: keyed(web.tavily),
      kagi: keyed(web.kagi),
      keenable: keyed(web.keenable),
      exa: keyed(web.exa),
      searxng: keyed(web.searxng),
      glm_search: { ...keyed(web.glm_search), searchEngine: web.glm_search.search_engine },
      gemini: { ...keyed(web.gemini), model: web.gemini.model },
      sogou: keyed(web.sogou),
    },
  };
}

/** Every `tools.<tool>` block switched off (the peer writes one per tool: `write_file`, `list_dir`, `web_fetch`…). */
function disabledTools(tools: Config['tools']): string[] {
  return Object.entries(tools)
    .filter(([, block]) => (block as { enabled?: unknown }).enabled === false)
    .map(([name]) => name);
}

import type { ThinkingLevel } from './provider.js';
import type { Route } from '../http/client.js';
import { knownProviders, providerCatalogue } from './catalogue.js';
import { ProviderConfigError } from './errors.js';
import { modelEntrySchema, type ModelEntry } from './model-entry.js';
import { nativeSearchOf, type NativeSearch } from './native-search.js';
import type { ProtocolFamily } from './provider.js';

/** A model entry after the selection rules: what one call to one endpoint needs. */
export interface ResolvedEntry {
  modelName: string;
  provider: string;
  family: ProtocolFamily;
  apiBase: string;
  /** The model id sent to the vendor. */
  model: string;
  keys: string[];
  needsKey: boolean;
  keyHeader?: string;
  enabled: boolean;
  stream: boolean;
  extraBody?: Record<string, unknown>;
  thinkingLevel?: ThinkingLevel;
  headers?: Record<string, string>;
  /** The entry's proxy (or the environment's) and its answer size cap. */
  route: Route;
  firstByteTimeoutMs: number;
  /** The endpoint's own web search (`tools.web.prefer_native`), when its family and provider have one. */
  nativeSearch?: NativeSearch;
  connectMode?: 'grpc' | 'stdio';
}

/** What a model answer may weigh unless the entry says otherwise; a larger one is refused, not read into memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 60_000;

// Legacy form: `provider/model`, where the model part may itself contain `/` (router forms such as
// `openrouter/anthropic/claude-…` send everything after the first segment to the router).
function selectProvider(entry: { provider?: string; model: string }): { provider: string; model: string } {
  if (entry.provider !== undefined) return { provider: entry.provider, model: entry.model };
  const slash = entry.model.indexOf('/');
  if (slash < 0) return { provider: 'openai', model: entry.model };
  return { provider: entry.model.slice(0, slash), model: entry.model.slice(slash + 1) };
}

export function resolveModelEntry(input: ModelEntry): ResolvedEntry {
  // Entries are resolved once per start or reload: zod's compiled fast path would not pay for itself.
  const parsed = modelEntrySchema.safeParse(input, { jitless: true });
  const name = typeof input.model_name === 'string' ? input.model_name : '(unnamed)';
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProviderConfigError(
      name,
      issue?.path.join('.') ?? '',
      `model entry ${name}: ${issue?.path.join('.')}: ${issue?.message}`,
    );
  }
  const entry = parsed.data;
  const { provider, model } = selectProvider(entry);
  const known = providerCatalogue[provider];
  if (!known || !Object.hasOwn(providerCatalogue, provider)) {
    throw new ProviderConfigError(
      entry.model_name,
      'provider',
      `model entry ${entry.model_name}: unknown provider "${provider}"; known providers: ${knownProviders.join(', ')}`,
    );
  }
  const apiBase = (entry.api_base ?? known.apiBase).replace(/\/+$/, '');
  if (apiBase === '') {
    throw new ProviderConfigError(
      entry.model_name,
      'api_base',
      `model entry ${entry.model_name}: provider "${provider}" has no default address; set api_base`,
    );
  }
  const native = nativeSearchOf(known.family, provider, model);
  const keys = [
    ...entry.api_keys,
    ...(entry.api_key !== undefined && !entry.api_keys.includes(entry.api_key) ? [entry.api_key] : []),
  ];
  return {
    modelName: entry.model_name,
    provider,
    family: known.family,
    apiBase,
    model,
    keys,
    needsKey: known.needsKey,
    keyHeader: known.keyHeader,
    enabled: entry.enabled !== false,
    stream: entry.streaming?.enabled === true,
    extraBody: entry.extra_body,
    headers: entry.headers,
    thinkingLevel: entry.thinking_level,
    route: {
      ...(entry.proxy ? { proxy: entry.proxy } : {}),
      maxAnswerBytes: entry.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    },
    firstByteTimeoutMs:
      entry.request_timeout !== undefined ? entry.request_timeout * 1000 : DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    ...(native ? { nativeSearch: native } : {}),
    ...(entry.connect_mode ? { connectMode: entry.connect_mode } : {}),
  };
}

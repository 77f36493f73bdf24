import type { ChatResponse, Correlation, EventDraft, ProviderErrorCode } from '../../bus/index.js';
import { createProviderClient } from './client.js';
import { ProviderConfigError, ProviderError } from './errors.js';
import { maskKey } from './mask-key.js';
import type { ModelEntry } from './model-entry.js';
import { Cooldowns, Pool, type Candidate, type Picked } from './pool.js';
import type { CallOptions, ChatRequest, ProtocolFamily, ProviderClient } from './provider.js';
import { resolveModelEntry, type ResolvedEntry } from './resolve.js';
import { ToolTagFilter } from './tool-tag-filter.js';

export interface ModelRouterOptions {
  report?: (draft: EventDraft) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Attempts per request, the first included. */
  maxAttempts?: number;
  /** How long a key that failed transiently rests, unless the vendor said (`retry-after`). */
  cooldownMs?: number;
  /** First backoff delay when every key is resting; it doubles per attempt. */
  baseDelayMs?: number;
}

/** What the caller asks; the router fills in the model id, streaming, `extra_body` and headers per entry. */
export type RouterRequest = Omit<ChatRequest, 'model' | 'stream' | 'extraBody' | 'headers'> & {
  /** Overrides the entry's `streaming.enabled`. */
  stream?: boolean;
};

export type RouterCallOptions = CallOptions & { correlation?: Correlation };

export interface ModelDescription {
  model_name: string;
  provider: string;
  family: ProtocolFamily;
  model: string;
  api_base: string;
  key_count: number;
  masked_keys: string[];
  enabled: boolean;
}

export interface ModelRouter {
  chat(modelName: string, request: RouterRequest, options?: RouterCallOptions): Promise<ChatResponse>;
  describe(): ModelDescription[];
}

// A stream that failed before anything was shown is asked again without streaming, unless asking again
// cannot help: the key is refused or the prompt is too long either way.
const noSecondAsk: ReadonlySet<ProviderErrorCode> = new Set(['auth', 'billing', 'context_overflow']);
const maxDelayMs = 30_000;

const label = (entry: ResolvedEntry): string => `${entry.provider}/${entry.model}`;

function keyText(candidate: Candidate): string {
  if (candidate.keyIndex === undefined || candidate.key === undefined) return 'without a key';
  return `key ${candidate.keyIndex + 1} of ${candidate.entry.keys.length} (${maskKey(candidate.key)})`;
}

function tagged(error: ProviderError, candidate: Candidate): ProviderError {
  const { entry } = candidate;
  const prefix = `model entry "${entry.modelName}" (${label(entry)}) ${keyText(candidate)}`;
  const message = error.code === 'auth'
    ? `${prefix} was refused: ${error.message}. Check that key in api_keys for "${entry.modelName}"`
    : `${prefix}: ${error.message}`;
  return error.from(entry.modelName, candidate.keyIndex, message);
}

function buildPools(resolved: ResolvedEntry[], cooldowns: Cooldowns): Map<string, Pool> {
  const members = new Map<string, Array<{ entry: ResolvedEntry; entryIndex: number }>>();
  resolved.forEach((entry, entryIndex) => {
    if (!entry.enabled) return;
    members.set(entry.modelName, [...(members.get(entry.modelName) ?? []), { entry, entryIndex }]);
  });
  return new Map([...members].map(([name, list]) => [name, new Pool(list, cooldowns)]));
}

/**
 * Calls models by `model_name`: pools round robin, keys rotate per request, transient failures back off and
 * fail over while the failing key rests, and every failure and retry is reported as an event.
 */
export function createModelRouter(entries: ModelEntry[], options: ModelRouterOptions = {}): ModelRouter {
  const resolved = entries.map(resolveModelEntry);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxAttempts = options.maxAttempts ?? 4;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const cooldowns = new Cooldowns(now);
  const pools = buildPools(resolved, cooldowns);
  const report = options.report ?? (() => undefined);
  // A client is only its URL and headers: one per entry and key, made on first use, serves every call.
  const clients = resolved.map((): ProviderClient[] => []);

  function clientFor({ entry, entryIndex, keyIndex, key }: Candidate): ProviderClient {
    const kept = clients[entryIndex]!;
    return (kept[keyIndex ?? 0] ??= createProviderClient({ family: entry.family, apiBase: entry.apiBase, apiKey: key, keyHeader: entry.keyHeader }));
  }

  function poolFor(modelName: string): Pool {
    const pool = pools.get(modelName);
    if (pool) return pool;
    const known = [...pools.keys()];
    const disabled = resolved.some((e) => e.modelName === modelName);
    throw new ProviderConfigError(modelName, 'model', disabled
      ? `model "${modelName}" is disabled (enabled: false) in model_list`
      : `unknown model "${modelName}"; model_list has: ${known.join(', ') || '(none)'}`);
  }

  async function attempt(candidate: Candidate, request: RouterRequest, stream: boolean, call: RouterCallOptions,
    seen: { visible: boolean }): Promise<ChatResponse> {
    const { entry } = candidate;
    if (entry.needsKey && candidate.key === undefined) {
      throw new ProviderError({ code: 'auth', message: `provider "${entry.provider}" needs a key and api_keys is empty` });
    }
    const client = clientFor(candidate);
    const filter = new ToolTagFilter((chunk) => {
      seen.visible = true;
      call.onChunk?.(chunk);
    });
    const response = await client.chat(
      Object.assign({}, request, { model: entry.model, stream, extraBody: entry.extraBody, headers: entry.headers }),
      { signal: call.signal, timeoutMs: call.timeoutMs, onChunk: (chunk) => filter.push(chunk) },
    );
    filter.flush();
    return response;
  }

  function reportFailure(error: ProviderError, correlation: Correlation): void {
    report({ ...correlation, type: 'provider.failed', data: { code: error.code, message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}), model_name: error.modelName,
      ...(error.keyIndex !== undefined ? { key_index: error.keyIndex } : {}) } });
  }

  /** What to try after a failure: the failing key rests when the failure is transient; backing off only when nothing else is at rest. */
  function nextTry(pool: Pool, picked: Picked, error: ProviderError, attemptNo: number): { picked: Picked; delay: number } {
    if (!error.retryable) return { picked: { ...picked, cooling: false }, delay: 0 };
    cooldowns.cool(picked.candidate, Math.max(error.retryAfterMs ?? 0, cooldownMs));
    const next = pool.pick(picked.member);
    const backoff = Math.max(error.retryAfterMs ?? 0, baseDelayMs * 2 ** (attemptNo - 1));
    return { picked: next, delay: next.cooling ? Math.min(maxDelayMs, backoff) : 0 };
  }

  async function chat(modelName: string, request: RouterRequest, call: RouterCallOptions = {}): Promise<ChatResponse> {
    const pool = poolFor(modelName);
    const correlation = call.correlation ?? {};
    let streamAllowed = true;
    let picked = pool.pick(pool.begin());
    for (let attemptNo = 1; ; attemptNo++) {
      const stream: boolean = streamAllowed && (request.stream ?? picked.candidate.entry.stream);
      const seen = { visible: false };
      try {
        return await attempt(picked.candidate, request, stream, call, seen);
      } catch (raw) {
        if (!(raw instanceof ProviderError) || call.signal?.aborted) throw raw;
        const error = tagged(raw, picked.candidate);
        reportFailure(error, correlation);
        const secondAsk = stream && !seen.visible && !noSecondAsk.has(error.code);
        if (seen.visible || (!error.retryable && !secondAsk) || attemptNo >= maxAttempts) throw error;
        if (stream) streamAllowed = false;
        const next = nextTry(pool, picked, error, attemptNo);
        picked = next.picked;
        report({ ...correlation, type: 'provider.retried', data: { code: error.code, attempt: attemptNo,
          next_model: label(picked.candidate.entry), delay_ms: next.delay } });
        if (next.delay > 0) await sleep(next.delay);
      }
    }
  }

  return {
    chat,
    describe: () => resolved.map((entry) => ({
      model_name: entry.modelName, provider: entry.provider, family: entry.family, model: entry.model, api_base: entry.apiBase,
      key_count: entry.keys.length, masked_keys: entry.keys.map(maskKey), enabled: entry.enabled,
    })),
  };
}

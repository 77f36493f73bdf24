import type { ChatResponse, Correlation, EventDraft, ProviderErrorCode } from '../../bus/index.js';
import { createProviderClient } from './client.js';
import { ProviderConfigError, ProviderError } from './errors.js';
import { maskKey } from './mask-key.js';
import type { ModelEntry } from './model-entry.js';
import { Cooldowns, Pool, type Candidate, type Picked, type RotationStore } from './pool.js';
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
  /**
   * How long one model request may go on before anything of its answer is shown: every attempt, fail-over and
   * back-off together. Past it the request fails as `timeout`, so a dead model server is reported in this time.
   */
  budgetMs?: number;
  /** Where each pool's rotation is kept between processes; without it, in memory only. */
  rotation?: RotationStore;
  /** Sent with every request that does not set its own (`agents.defaults.temperature` and `max_tokens`). */
  temperature?: number;
  maxTokens?: number;
}

export const DEFAULT_BUDGET_MS = 150_000;

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
const noSecondAsk: ReadonlySet<ProviderErrorCode> = new Set(['auth', 'billing', 'context_overflow', 'too_large']);
const maxDelayMs = 30_000;
/** The setting a model budget's timeout names. */
const BUDGET_KEY = 'agents.defaults.model_budget_seconds';

const label = (entry: ResolvedEntry): string => `${entry.provider}/${entry.model}`;

function keyText(candidate: Candidate): string {
  if (candidate.keyIndex === undefined || candidate.key === undefined) return 'without a key';
  return `key ${candidate.keyIndex + 1} of ${candidate.entry.keys.length} (${maskKey(candidate.key)})`;
}

function tagged(error: ProviderError, candidate: Candidate): ProviderError {
  const { entry } = candidate;
  const prefix = `model entry "${entry.modelName}" (${label(entry)}) ${keyText(candidate)}`;
  // An OAuth provider has no key to check: its own message says how to sign in.
  const message =
    error.code === 'auth' && candidate.key !== undefined
      ? `${prefix} was refused: ${error.message}. Check that key in api_keys for "${entry.modelName}"`
      : `${prefix}: ${error.message}`;
  return error.from(entry.modelName, candidate.keyIndex, message);
}

function buildPools(
  resolved: ResolvedEntry[],
  cooldowns: Cooldowns,
  rotation: RotationStore | undefined,
): Map<string, Pool> {
  const members = new Map<string, Array<{ entry: ResolvedEntry; entryIndex: number }>>();
  resolved.forEach((entry, entryIndex) => {
    if (!entry.enabled) return;
    members.set(entry.modelName, [...(members.get(entry.modelName) ?? []), { entry, entryIndex }]);
  });
  return new Map([...members].map(([name, list]) => [name, new Pool(name, list, cooldowns, rotation)]));
}

/**
 * The time one request may take before anything of its answer is shown. Its attempts get a signal that ends
 * when the caller's does, or when the time is up while nothing has been shown; once a chunk was shown the user
 * has heard from the model and the stream runs on under the transport's own pauses limit.
 */
class Budget {
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private readonly timer: ReturnType<typeof setTimeout>;
  visible = false;
  spent = false;

  constructor(
    private readonly ms: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.deadline = Date.now() + ms;
    this.timer = setTimeout(() => this.expire(), ms);
    if (caller?.aborted) this.handleEvent();
    else caller?.addEventListener('abort', this);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The caller's abort reaches the attempt at once. */
  handleEvent(): void {
    this.controller.abort(this.caller?.reason);
  }

  shown(): void {
    this.visible = true;
    clearTimeout(this.timer);
  }

  attemptStarts(): void {
    if (this.leftMs() <= 0) this.expire();
  }

  leftMs(): number {
    return this.deadline - Date.now();
  }

  failure(last: ProviderError | undefined, attempts: number): ProviderError {
    const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const why = last ? `; last: ${last.message}` : '';
    return new ProviderError({
      code: 'timeout',
      message: `no answer within ${Math.round(this.ms / 1000)} s (${tries}, ${BUDGET_KEY})${why}`,
    });
  }

  end(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this);
  }

  private expire(): void {
    if (this.visible || this.spent) return;
    this.spent = true;
    this.controller.abort(new Error('the model budget is spent'));
  }
}

/**
 * Calls models by `model_name`: pools round robin, keys rotate per request, transient failures back off and
 * fail over while the failing key rests, and every failure and retry is reported as an event.
 */
export function createModelRouter(entries: ModelEntry[], options: ModelRouterOptions = {}): ModelRouter {
  const resolved = entries.map(resolveModelEntry);
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  const maxAttempts = options.maxAttempts ?? 4;
  const cooldownMs = options.cooldownMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const cooldowns = new Cooldowns(now);
  const pools = buildPools(resolved, cooldowns, options.rotation);
  const report = options.report ?? (() => undefined);
  // A client is only its URL and headers: one per entry and key, made on first use, serves every call.
  const clients = resolved.map((): ProviderClient[] => []);

  function clientFor({ entry, entryIndex, keyIndex, key }: Candidate): ProviderClient {
    const kept = clients[entryIndex]!;
    return (kept[keyIndex ?? 0] ??= createProviderClient({
      family: entry.family,
      apiBase: entry.apiBase,
      apiKey: key,
      keyHeader: entry.keyHeader,
      route: entry.route,
      firstByteTimeoutMs: entry.firstByteTimeoutMs,
      ...(entry.nativeSearch ? { nativeSearch: entry.nativeSearch } : {}),
      ...(entry.connectMode ? { connectMode: entry.connectMode } : {}),
    }));
  }

  function poolFor(modelName: string): Pool {
    const pool = pools.get(modelName);
    if (pool) return pool;
    const known = [...pools.keys()];
    const disabled = resolved.some((e) => e.modelName === modelName);
    throw new ProviderConfigError(
      modelName,
      'model',
      disabled
        ? `model "${modelName}" is disabled (enabled: false) in model_list`
        : `unknown model "${modelName}"; model_list has: ${known.join(', ') || '(none)'}`,
    );
  }

  async function attempt(
    candidate: Candidate,
    request: RouterRequest,
    stream: boolean,
    call: RouterCallOptions,
    budget: Budget,
  ): Promise<ChatResponse> {
    const { entry } = candidate;
    if (entry.needsKey && candidate.key === undefined) {
      throw new ProviderError({
        code: 'auth',
        message: `provider "${entry.provider}" needs a key and api_keys is empty`,
      });
    }
    const client = clientFor(candidate);
    const filter = new ToolTagFilter((chunk) => {
      budget.shown();
      call.onChunk?.(chunk);
    });
    const response = await client.chat(
      Object.assign({}, request, {
        model: entry.model,
        stream,
        extraBody: entry.extraBody,
        headers: entry.headers,
        temperature: request.temperature ?? options.temperature,
        maxTokens: request.maxTokens ?? options.maxTokens,
        thinkingLevel: entry.thinkingLevel,
      }),
      {
        signal: budget.signal,
        onChunk: (chunk) => filter.push(chunk),
        ...(call.firstByteTimeoutMs !== undefined ? { firstByteTimeoutMs: call.firstByteTimeoutMs } : {}),
      },
    );
    filter.flush();
    return response;
  }

  function reportFailure(error: ProviderError, correlation: Correlation): void {
    report({
      ...correlation,
      type: 'provider.failed',
      data: {
        code: error.code,
        message: error.message,
        ...(error.status !== undefined ? { status: error.status } : {}),
        model_name: error.modelName,
        ...(error.keyIndex !== undefined ? { key_index: error.keyIndex } : {}),
      },
    });
  }

  /**
   * What to try after a failure: the failing key rests when the failure is transient; backing off only when nothing
   * else is at rest.
   */
  function nextTry(
    pool: Pool,
    picked: Picked,
    error: ProviderError,
    attemptNo: number,
  ): { picked: Picked; delay: number } {
    if (!error.retryable) return { picked: { ...picked, cooling: false }, delay: 0 };
    cooldowns.cool(picked.candidate, Math.max(error.retryAfterMs ?? 0, cooldownMs));
    const next = pool.pick(picked.member);
    const backoff = Math.max(error.retryAfterMs ?? 0, baseDelayMs * 2 ** (attemptNo - 1));
    return { picked: next, delay: next.cooling ? Math.min(maxDelayMs, backoff) : 0 };
  }

  function spent(
    budget: Budget,
    last: ProviderError | undefined,
    candidate: Candidate,
    attempts: number,
    correlation: Correlation,
  ): ProviderError {
    const error = budget.failure(last, attempts).from(candidate.entry.modelName, candidate.keyIndex);
    reportFailure(error, correlation);
    return error;
  }

  async function chat(modelName: string, request: RouterRequest, call: RouterCallOptions = {}): Promise<ChatResponse> {
    const pool = poolFor(modelName);
    const correlation = call.correlation ?? {};
    const budget = new Budget(budgetMs, call.signal);
    let streamAllowed = true;
    let picked = pool.pick(pool.begin());
    let last: ProviderError | undefined;
    try {
      for (let attemptNo = 1; ; attemptNo++) {
        const stream: boolean = streamAllowed && (request.stream ?? picked.candidate.entry.stream);
        budget.attemptStarts();
        try {
          return await attempt(picked.candidate, request, stream, call, budget);
        } catch (raw) {
          if (call.signal?.aborted) throw raw;
          if (budget.spent)
            throw spent(
              budget,
              raw instanceof ProviderError ? tagged(raw, picked.candidate) : last,
              picked.candidate,
              attemptNo,
              correlation,
            );
          if (!(raw instanceof ProviderError)) throw raw;
          const error = tagged(raw, picked.candidate);
          last = error;
          reportFailure(error, correlation);
          const secondAsk = stream && !budget.visible && !noSecondAsk.has(error.code);
          if (budget.visible || (!error.retryable && !secondAsk) || attemptNo >= maxAttempts) throw error;
          if (stream) streamAllowed = false;
          const next = nextTry(pool, picked, error, attemptNo);
          if (next.delay >= budget.leftMs()) throw spent(budget, error, picked.candidate, attemptNo, correlation);
          picked = next.picked;
          report({
            ...correlation,
            type: 'provider.retried',
            data: {
              code: error.code,
              attempt: attemptNo,
              next_model: label(picked.candidate.entry),
              delay_ms: next.delay,
            },
          });
          if (next.delay > 0) await sleep(next.delay);
        }
      }
    } finally {
      budget.end();
    }
  }

  return {
    chat,
    describe: () =>
      resolved.map((entry) => ({
        model_name: entry.modelName,
        provider: entry.provider,
        family: entry.family,
        model: entry.model,
        api_base: entry.apiBase,
        key_count: entry.keys.length,
        masked_keys: entry.keys.map(maskKey),
        enabled: entry.enabled,
      })),
  };
}

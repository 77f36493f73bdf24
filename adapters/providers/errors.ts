import type { ProviderErrorCode } from '../../bus/index.js';

const transient: ReadonlySet<ProviderErrorCode> = new Set(['rate_limit', 'overloaded', 'timeout', 'network']);

export interface ProviderErrorInit {
  code: ProviderErrorCode;
  message: string;
  status?: number;
  /** Empty until the router knows which model entry made the call. */
  modelName?: string;
  keyIndex?: number;
  /** From a `retry-after` header, when the vendor sent one. */
  retryAfterMs?: number;
}

/** A failed model call, decided from status codes and response bodies. */
export class ProviderError extends Error {
  readonly code: ProviderErrorCode;
  readonly status?: number;
  readonly retryable: boolean;
  readonly modelName: string;
  readonly keyIndex?: number;
  readonly retryAfterMs?: number;

  constructor(init: ProviderErrorInit) {
    super(init.message);
    this.name = 'ProviderError';
    this.code = init.code;
    this.status = init.status;
    this.retryable = transient.has(init.code);
    this.modelName = init.modelName ?? '';
    this.keyIndex = init.keyIndex;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The same failure, tagged with the model entry and key that produced it. */
  from(modelName: string, keyIndex: number | undefined, message = this.message): ProviderError {
    return new ProviderError({ ...this.init(), message, modelName, keyIndex });
  }

  private init(): ProviderErrorInit {
    return { code: this.code, message: this.message, status: this.status, retryAfterMs: this.retryAfterMs };
  }
}

/** A model entry that cannot be used as configured (unknown provider, missing `api_base`). */
export class ProviderConfigError extends Error {
  readonly code = 'provider_config';
  constructor(
    readonly modelName: string,
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderConfigError';
  }
}

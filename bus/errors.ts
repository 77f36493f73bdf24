/** An event that does not match the catalogue: always a programming error in Tern itself. */
export class InvalidEventError extends Error {
  readonly code = 'invalid_event';
  constructor(
    readonly type: string,
    readonly issues: string[],
  ) {
    super(`invalid event ${type}: ${issues.join('; ')}`);
    this.name = 'InvalidEventError';
  }
}

/** A `bus.request` got no answer within its `timeoutMs`. */
export class RequestTimeoutError extends Error {
  readonly code = 'request_timeout';
  constructor(
    readonly type: string,
    readonly timeoutMs: number,
  ) {
    super(`no answer to ${type} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** A `bus.request`'s signal aborted before the answer came; `reason` is the signal's. */
export class RequestAbortedError extends Error {
  readonly code = 'request_aborted';
  constructor(
    readonly type: string,
    readonly reason: unknown,
  ) {
    super(`the request ${type} was abandoned: ${reason instanceof Error ? reason.message : String(reason)}`);
    this.name = 'RequestAbortedError';
  }
}

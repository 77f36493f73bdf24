/** An event that does not match the catalogue: always a programming error in Tern itself. */
export class InvalidEventError extends Error {
  readonly code = 'invalid_event';
  constructor(readonly type: string, readonly issues: string[]) {
    super(`invalid event ${type}: ${issues.join('; ')}`);
    this.name = 'InvalidEventError';
  }
}

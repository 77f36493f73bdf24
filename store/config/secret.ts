import { inspect } from 'node:util';

/**
 * A key, token or password from the config. It prints masked everywhere (logs, errors, `config show`,
 * the dashboard), so a secret can only leak through an explicit `reveal()`.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  get isEmpty(): boolean {
    return this.#value.length === 0;
  }

  /** `sk-a…f9` for long values; short ones would give away too much of themselves, so they print `****`. */
  get masked(): string {
    const v = this.#value;
    if (v.length === 0) return '';
    if (v.length < 12) return '****';
    return `${v.slice(0, 4)}…${v.slice(-2)}`;
  }

  toString(): string {
    return this.masked;
  }

  toJSON(): string {
    return this.masked;
  }

  [inspect.custom](): string {
    return `Secret(${this.masked})`;
  }
}

export function isSecret(value: unknown): value is Secret {
  return value instanceof Secret;
}

/** Every secret value in a config (or any object), revealed: what output filters and log masks must hide. */
export function secretValues(value: unknown, found: Set<string> = new Set()): string[] {
  if (isSecret(value)) {
    if (!value.isEmpty) found.add(value.reveal());
  } else if (Array.isArray(value)) {
    value.forEach((item) => secretValues(item, found));
  } else if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach((item) => secretValues(item, found));
  }
  return [...found];
}

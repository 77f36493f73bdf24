import type { Config } from './schema/index.js';
import { runtimeSecrets } from './runtime-secrets.js';
import { Secret } from './secret.js';

export const REDACTED = '[REDACTED]';

/**
 * Values shorter than this are not looked for in text: they match ordinary words (a test key `k1` would mask
 * every `k1` in a chat). Real keys and tokens are far longer; `config show` still masks short ones.
 */
export const MIN_SECRET_LENGTH = 8;

/** Shapes of well-known credentials, masked even when the runtime was never told the value. */
const KEY_SHAPES: string[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/.source,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/.source,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/.source,
  /\bgithub_pat_[A-Za-z0-9_]{30,}/.source,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/.source,
  /\bAKIA[0-9A-Z]{16}\b/.source,
  /\bAIza[0-9A-Za-z_-]{35}\b/.source,
  /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/.source,
  /\b(?<bearer>Bearer\s+)[A-Za-z0-9._~+/=-]{20,}/.source,
];

/**
 * The password in a URL's user info (`http://user:pass@proxy:3128`), whoever the URL belongs to. One already masked
 * (`****`) stays as it is. Looked for only in text with `://`: tried at every word, it was most of the scan's time.
 */
const USER_INFO = /(?<userinfo>\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@[\]]+:)(?!\*+@)[^\s/@[\]]+(?=@)/.source;

/** The shortest text any pattern can match: shorter strings are returned untouched without a scan. */
const SHORTEST_SHAPE = 20;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The one redaction of Tern: every configured secret (model keys, channel tokens, search keys, registry tokens,
 * MCP headers, env and env_file values, proxy credentials) and every well-known key shape is masked in text that
 * leaves the process or is kept: events (and so the log, `tern log`, the dashboard), log lines, tool results,
 * replies to chats. A configured secret prints as everywhere else (`sk-a…f9`, so two keys can be told apart); a
 * key Tern was never told reads `[REDACTED]`.
 */
export class Redactor {
  static readonly none = new Redactor([]);

  private readonly pattern: RegExp;
  /** `pattern` without `USER_INFO`. */
  private readonly withoutUserInfo: RegExp;
  private readonly userInfo = new RegExp(USER_INFO);
  private readonly masked = new Map<string, string>();
  private readonly shortest: number;

  constructor(secrets: readonly string[]) {
    // A header value `Bearer <token>` is configured whole, but the token leaks alone just as well.
    const tokens = secrets.flatMap((s) => /^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i.exec(s)?.[1] ?? []);
    const known = [...new Set([...secrets, ...tokens])]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
    for (const secret of known) this.masked.set(secret, new Secret(secret).masked);
    const shapes = [...known.map(escapeRegExp), ...KEY_SHAPES];
    this.pattern = new RegExp([...shapes, USER_INFO].join('|'), 'g');
    this.withoutUserInfo = new RegExp(shapes.join('|'));
    this.shortest = Math.min(SHORTEST_SHAPE, ...known.map((s) => s.length));
  }

  text(text: string): string {
    if (text.length < this.shortest) return text;
    if (!this.withoutUserInfo.test(text) && !(text.includes('://') && this.userInfo.test(text))) return text;
    return text.replace(this.pattern, (match: string, ...rest: unknown[]) => {
      const known = this.masked.get(match);
      if (known !== undefined) return known;
      const groups = rest.at(-1) as { bearer?: string; userinfo?: string } | undefined;
      const kept = groups?.bearer ?? groups?.userinfo;
      return kept ? `${kept}${REDACTED}` : REDACTED;
    });
  }

  /** `value` with every string in it redacted; parts without a secret are the same objects (nothing is copied then). */
  value<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as unknown;
        const next = this.walk(item);
        if (next !== item) (copy ??= value.slice())[i] = next;
      }
      return copy ?? value;
    }
    let copy: Record<string, unknown> | undefined;
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      const next = this.walk(item);
      if (next !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = next;
    }
    return copy ?? value;
  }
}

const byConfig = new WeakMap<Config, Redactor>();

/** The redactor for a loaded config, built once per config (a reload brings a new config, and so its new secrets). */
export function redactorOf(config: Config): Redactor {
  let redactor = byConfig.get(config);
  if (!redactor) {
    redactor = new Redactor(runtimeSecrets(config));
    byConfig.set(config, redactor);
  }
  return redactor;
}

/** Fields whose values are keys and tokens in a config as written, before its types are known. */
const SECRET_FIELD = /(token|secret|password|api_keys?|aes_key|encrypt_key)$/i;

/**
 * The values of secret-named fields of a raw config (all its strings with `all`: the credentials file holds nothing
 * else), whatever the rest of it looks like: a config that fails to parse still has keys worth hiding.
 */
export function rawSecrets(raw: unknown, all = false, found: string[] = []): string[] {
  if (typeof raw === 'string') {
    if (all) found.push(raw);
  } else if (Array.isArray(raw)) {
    for (const item of raw) rawSecrets(item, all, found);
  } else if (typeof raw === 'object' && raw !== null) {
    for (const [key, value] of Object.entries(raw)) rawSecrets(value, all || SECRET_FIELD.test(key), found);
  }
  return found;
}

/** Every secret this process has read, for `printRedactor`; rebuilt only when one is added. */
const read = new Set<string>();
let printed: Redactor | undefined;

/**
 * Secrets this process has read (every config it loaded, the credentials file, keys given on the command line): what
 * it prints must never show them, even when the config they came from was not usable.
 */
export function rememberSecrets(values: Iterable<string>): void {
  for (const value of values) {
    if (value.length < MIN_SECRET_LENGTH || read.has(value)) continue;
    read.add(value);
    printed = undefined;
  }
}

/** The redactor for what a command prints: every secret `rememberSecrets` was given, and the key shapes. */
export function printRedactor(): Redactor {
  printed ??= new Redactor([...read]);
  return printed;
}

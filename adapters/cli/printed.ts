import { printRedactor } from '../../store/config/redactor.js';

const patched = new WeakSet<NodeJS.WriteStream>();
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text of a chunk as written; undefined for bytes that are not UTF-8 text (they go out as they are). */
function textOf(chunk: unknown): string | undefined {
  if (typeof chunk === 'string') return chunk;
  if (!(chunk instanceof Uint8Array)) return undefined;
  try {
    return utf8.decode(chunk);
  } catch {
    return undefined;
  }
}

/**
 * The one redaction of everything a command prints: each text written to `stream` passes the redactor of every
 * secret this process has read (`rememberSecrets`: loaded configs, the credentials file, keys given as flags) and the
 * well-known key shapes. Doctor output, onboarding, status, validation and every error go out through it, whichever
 * part of the code wrote them, so a provider that quotes a key back cannot put it on the screen.
 */
export function redactWrites(stream: NodeJS.WriteStream): void {
  if (patched.has(stream)) return;
  patched.add(stream);
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    const text = textOf(chunk);
    return write(text === undefined ? chunk : printRedactor().text(text), ...rest);
  }) as typeof stream.write;
}

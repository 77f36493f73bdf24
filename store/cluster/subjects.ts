/**
 * NATS subject tokens for Tern's names. A token may not hold `.`, `*`, `>` or whitespace, so an event type
 * (`message.received`) has its dots written as `-` (types are `[a-z_.]`), and a session key or id has every character
 * outside `[A-Za-z0-9_:@+=-]` written as `%XX` (UTF-8 bytes), `%` included: the encoding is one to one.
 */
const SAFE = /^[A-Za-z0-9_:@+=-]+$/;

/** The token for an absent session: `%` never starts a token the encoding makes from a real one without `%25`. */
export const NO_SESSION = '%00';

export function typeToken(type: string): string {
  return type.replaceAll('.', '-');
}

export function idToken(id: string | undefined): string {
  if (id === undefined || id === '') return NO_SESSION;
  if (SAFE.test(id)) return id;
  let token = '';
  for (const char of id) {
    if (SAFE.test(char)) token += char;
    else for (const byte of Buffer.from(char, 'utf8')) token += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return token;
}

/**
 * The id `idToken` made `token` from; undefined for `NO_SESSION` and for a token the encoding never makes (a subject
 * someone else published under one of Tern's roots), so a name read back is always one Tern wrote.
 */
export function tokenId(token: string): string | undefined {
  if (token === NO_SESSION) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(token);
  } catch {
    return undefined;
  }
  return idToken(id) === token ? id : undefined;
}

/** `<root>.<type>.<session>`: the subject an event is stored under. */
export function eventSubject(root: string, type: string, session: string | undefined): string {
  return `${root}.${typeToken(type)}.${idToken(session)}`;
}

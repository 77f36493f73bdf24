// `scheme://user:password@host`: the password in a URL's userinfo (a proxy's, a NATS server's, an API root's) is a
// secret wherever the URL is shown, although the field holding the URL is plain text.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^:/@\s,]*):([^@/\s,]+)@/gi;

/** The mask a URL's password is shown as: the same for every password, so it never hints at its length. */
export const URL_PASSWORD_MASK = '****';

/** True when `value` holds at least one URL with a password (a comma-separated list of URLs counts). */
export function hasUrlPassword(value: string): boolean {
  return maskUrlPassword(value) !== value;
}

/** `http://user:****@host:3128`; a value without a URL password is returned as it is. */
export function maskUrlPassword(value: string): string {
  return value.replace(USERINFO, (whole, head: string, password: string) =>
    password === URL_PASSWORD_MASK ? whole : `${head}:${URL_PASSWORD_MASK}@`,
  );
}

/** A URL whose password is the mask itself: what the dashboard sent back for a password it never saw. */
export function hasMaskedUrlPassword(value: string): boolean {
  return value.includes(`:${URL_PASSWORD_MASK}@`) && /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
}

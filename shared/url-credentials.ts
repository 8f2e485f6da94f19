/**
 * Credentials in URLs (`http://user:password@host/…`, `https://x-access-token:TOKEN@host/…`,
 * `https://TOKEN@host/…`) are never shown, stored or logged: every message, record and log line
 * that can carry a remote URL goes through `redactCredentials` first. The password becomes `***`
 * (the user name stays, it says which account); on http(s) and ftp(s) a user name alone is
 * replaced too, since tokens are commonly passed that way. ssh user names (`ssh://git@host`) stay.
 * Pure, and idempotent: a redacted text redacts to itself.
 */

/** What a redacted secret reads as. */
export const REDACTED = '***';

/** `scheme://userinfo@`: the userinfo stops at whitespace, a quote, `/`, `?`, `#` or `@`. */
const USERINFO = /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#@'"<>`]+)@/gi;

/** Schemes where a lone user name is often a token. */
const TOKEN_USER_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps']);

/** `text` with the credentials of every URL in it replaced by `***`; the rest is unchanged. */
export function redactCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(USERINFO, (whole, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    if (colon >= 0) return `${scheme}://${userinfo.slice(0, colon)}:${REDACTED}@`;
    return TOKEN_USER_SCHEMES.has(scheme.toLowerCase()) ? `${scheme}://${REDACTED}@` : whole;
  });
}

/** `url` redacted, or null for null (remote URLs are optional on records). */
export function redactUrl(url: string | null): string | null {
  return url === null ? null : redactCredentials(url);
}

/**
 * A redacted URL made usable by git again: the `***` password (or `***` user) is dropped, so git
 * asks the device's own credential helper instead of sending a placeholder.
 */
export function withoutRedactedCredentials(url: string): string {
  return url.replace(USERINFO, (whole, scheme: string, userinfo: string) => {
    if (userinfo === REDACTED) return `${scheme}://`;
    if (userinfo.endsWith(`:${REDACTED}`)) return `${scheme}://${userinfo.slice(0, -REDACTED.length - 1)}@`;
    return whole;
  });
}

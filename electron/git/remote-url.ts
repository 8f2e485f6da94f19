/**
 * Normalizes git remote URLs to one comparable key, so `git@host:a/b.git`, `https://host/a/b`,
 * `ssh://git@host/a/b.git`, `ssh://host:22/a/b` (and plain paths / file:// URLs) match. Pure.
 */
import { isAbsolute, resolve } from 'node:path';

/** `user@host:path` (scp-like ssh), where no `/` comes before the colon. */
const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/\/)(.+)$/;
const URL_LIKE = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:]+)(?::\d*)?(\/.*)?$/i;

function networkKey(host: string, path: string): string | null {
  const cleanPath = path
    .replace(/^\/+/, '')
    .replace(/^~[^/]*\//, '') // ssh://host/~user/repo → repo relative to the user's home
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  if (host.length === 0 || cleanPath.length === 0) return null;
  return `${host.toLowerCase()}/${cleanPath}`;
}

function pathKey(path: string, base: string): string {
  const absolute = isAbsolute(path) ? path : resolve(base, path);
  return `file:${resolve(absolute).replace(/\/+$/, '') || '/'}`;
}

/**
 * The comparable key of a remote URL: `host/owner/repo` for network remotes (user, port and
 * `.git` dropped, host lowercased), `file:/abs/path` for local ones; null when it is not a URL.
 */
export function normalizeRemote(url: string, base = '/'): string | null {
  const raw = url.trim();
  if (raw.length === 0 || raw.includes('\0')) return null;
  if (/^file:\/\//i.test(raw)) {
    const path = decodeURIComponent(raw.slice('file://'.length).replace(/^localhost(?=\/)/, ''));
    return path.startsWith('/') ? pathKey(path, base) : null;
  }
  const asUrl = URL_LIKE.exec(raw);
  if (asUrl) return networkKey(asUrl[2] ?? '', asUrl[3] ?? '');
  if (raw.startsWith('/') || raw.startsWith('.')) return pathKey(raw, base);
  const scp = SCP_LIKE.exec(raw);
  if (scp) return networkKey(scp[1] ?? '', scp[2] ?? '');
  return pathKey(raw, base);
}

/** True when both URLs name the same repository once normalized. */
export function sameRemote(a: string, b: string, base = '/'): boolean {
  const ka = normalizeRemote(a, base);
  return ka !== null && ka === normalizeRemote(b, base);
}

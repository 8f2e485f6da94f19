/**
 * The one check every request to the headless host passes, HTTP and WebSocket alike:
 * the Host header must name this host by loopback address and port (defeats DNS rebinding),
 * a browser Origin, when sent, must be this host too, and the API requires the per-launch token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TOKEN_PARAM } from '../../shared/device-bridge.ts';

export interface GuardConfig {
  port: number;
  token: string;
}

export type GuardVerdict = { ok: true; url: URL } | { ok: false; status: 400 | 401 | 403; reason: string };

/** The host:port values this host answers to. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `url` carries the host's token. */
export function carriesToken(url: URL, config: GuardConfig): boolean {
  return sameToken(url.searchParams.get(TOKEN_PARAM), config.token);
}

/**
 * Checks Host (always), Origin (when present) and — when `needsToken` — the `token` query parameter.
 * Returns the parsed request URL when the request may proceed.
 */
export function guardRequest(req: Pick<IncomingMessage, 'headers' | 'url'>, config: GuardConfig, needsToken: boolean): GuardVerdict {
  const hosts = allowedHosts(config.port);
  const host = req.headers.host;
  if (typeof host !== 'string' || !hosts.includes(host.toLowerCase())) {
    return { ok: false, status: 403, reason: 'host_not_allowed' };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !hosts.some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
    return { ok: false, status: 403, reason: 'origin_not_allowed' };
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', `http://${host}`);
  } catch {
    return { ok: false, status: 400, reason: 'bad_url' };
  }
  if (needsToken && !carriesToken(url, config)) {
    return { ok: false, status: 401, reason: 'bad_token' };
  }
  return { ok: true, url };
}

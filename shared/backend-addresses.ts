/**
 * A device's backend addresses: one or more http(s) addresses of the sync backend (several instances
 * on one database, or one load balancer), tried in order. Written once here for the command line
 * (`--backend URL[,URL…]`, BATON_BACKEND), the set-up and settings screens, the profile and invites.
 * An address carries no credentials, query or fragment (it is shown and logged); its trailing slashes
 * are dropped, so `http://a:8787/` and `http://a:8787` are one address.
 */
import { z } from 'zod';
import type { Result } from './errors.ts';

/** How many addresses a device keeps at most. */
export const MAX_BACKEND_ADDRESSES = 8;
const MAX_ADDRESS_LENGTH = 500;

const ADDRESS =
  /^(https?):\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?(\/[A-Za-z0-9._~%!$&'()*+;=:/-]*)?$/;

/** One address in its kept form, or why it is not one (in words, naming the text). */
export function parseBackendUrl(text: string): Result<string, 'invalid_backend_address'> {
  const refuse = (why: string) => ({ ok: false as const, code: 'invalid_backend_address' as const, message: `"${text}" ${why}` });
  const entry = text.trim();
  if (entry === '') return refuse('is empty');
  if (entry.length > MAX_ADDRESS_LENGTH) return refuse(`is longer than ${MAX_ADDRESS_LENGTH} characters`);
  if (!/^https?:\/\//i.test(entry)) return refuse('is not an http:// or https:// address');
  if (/[?#]/.test(entry)) return refuse('has a query or fragment; give only scheme, host, port (and a path prefix)');
  if (/^https?:\/\/[^/]*@/i.test(entry)) return refuse('carries credentials; an address must not (it is shown and logged)');
  const match = ADDRESS.exec(entry.replace(/^(https?)/i, (scheme) => scheme.toLowerCase()));
  if (!match) return refuse('is not a valid address (expected e.g. http://10.0.0.5:8787)');
  const port = match[3];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return refuse('has a port outside 1–65535');
  const path = (match[4] ?? '').replace(/\/+$/, '');
  return { ok: true, value: `${match[1]}://${match[2]!.toLowerCase()}${port === undefined ? '' : `:${port}`}${path}` };
}

/**
 * A list of addresses separated by commas (and, from a text field, spaces or new lines), in its kept
 * form: each address checked, duplicates dropped, at least one and at most MAX_BACKEND_ADDRESSES.
 */
export function parseBackendList(text: string): Result<string[], 'invalid_backend_address'> {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0)
    return { ok: false, code: 'invalid_backend_address', message: 'no backend address given (expected e.g. http://10.0.0.5:8787)' };
  return backendList(entries);
}

/** Checks and normalises a list of addresses given one by one (see parseBackendList). */
export function backendList(entries: readonly string[]): Result<string[], 'invalid_backend_address'> {
  const kept: string[] = [];
  for (const entry of entries) {
    const parsed = parseBackendUrl(entry);
    if (!parsed.ok) return parsed;
    if (!kept.includes(parsed.value)) kept.push(parsed.value);
  }
  if (kept.length === 0) return { ok: false, code: 'invalid_backend_address', message: 'no backend address given' };
  if (kept.length > MAX_BACKEND_ADDRESSES)
    return {
      ok: false,
      code: 'invalid_backend_address',
      message: `at most ${MAX_BACKEND_ADDRESSES} backend addresses, got ${kept.length}`,
    };
  return { ok: true, value: kept };
}

/** Addresses as one line, the way `--backend` and BATON_BACKEND take them. */
export function formatBackendList(urls: readonly string[]): string {
  return urls.join(',');
}

/** The schema of a checked address list (profile, invite, device API inputs); parses to the kept form. */
export const BackendUrls = z
  .array(z.string().max(MAX_ADDRESS_LENGTH))
  .min(1)
  .max(MAX_BACKEND_ADDRESSES * 4)
  .transform((entries, ctx) => {
    const parsed = backendList(entries);
    if (parsed.ok) return parsed.value;
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  });

/** Whether `host` (a name or an address, IPv6 with or without brackets) is this machine only. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

/** The addresses that speak plain HTTP beyond this machine (a device warns of them: nothing on them is private). */
export function plainHttpBeyondLoopback(urls: readonly string[]): string[] {
  return urls.filter((url) => {
    const match = /^http:\/\/(\[[^\]]+\]|[^:/]+)/i.exec(url);
    return match !== null && !isLoopbackHost(match[1]!.toLowerCase());
  });
}

/** Whether `urls` are all addresses of this machine only (an invite carrying them works for a device on it alone). */
export function onlyThisMachine(urls: readonly string[]): boolean {
  return urls.every((url) => {
    const match = /^https?:\/\/(\[[^\]]+\]|[^:/]+)/i.exec(url);
    return match !== null && isLoopbackHost(match[1]!.toLowerCase());
  });
}

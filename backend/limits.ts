/**
 * The backend's limits against hostile or broken clients, declared once with their defaults. Each is
 * a setting (`startBackend({ limits })`); tests use small values so they run fast.
 */
import { MAX_INVITE_TTL_MS } from '../shared/api/devices.ts';

export interface BackendLimits {
  /**
   * Largest blob body accepted (a sealed checkpoint); a larger declared Content-Length is refused (413)
   * before reading. `baton backend --max-blob-mib N` sets it; /healthz publishes it, so a device can
   * refuse a move whose checkpoint would not fit before anything moves.
   */
  maxBlobBytes: number;
  /** Largest JSON body accepted from a device, refused the same way. */
  maxJsonBytes: number;
  /**
   * Largest body of a route signed by a key its body carries (account creation, join request):
   * such a body is read before its signature can be checked, so it is kept small.
   */
  maxSelfBodyBytes: number;
  /** Time a client has to send a request's headers, from its first byte (or the connection). */
  headersTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** How long a socket may see no traffic at all in the middle of a request or answer. */
  idleTimeoutMs: number;
  /**
   * A body must arrive at least this fast, measured over each `bodyRateWindowMs`: a trickle is cut,
   * a slow but steady upload of any size goes through (there is no total time limit).
   */
  minBodyBytesPerSecond: number;
  bodyRateWindowMs: number;
  /** Blob uploads in progress at once, per device and per account (429 `too_many_uploads` beyond). */
  maxUploadsPerDevice: number;
  maxUploadsPerAccount: number;
  /** Push streams open at once per device; a new one beyond this closes that device's oldest. */
  maxStreamsPerDevice: number;
  /** Longest invite lifetime accepted (at most an hour). */
  maxInviteTtlMs: number;
  /**
   * What may be posted to sessions' logs (answers to permission requests, Move here requests) within
   * each `postWindowMs`: by one device to all sessions, and by all devices to one session — posts and
   * the characters of their sealed bodies. Beyond either, 429 `rate_limited` with Retry-After. A person
   * answering or asking by hand stays far below; a device that floods a log is held to it.
   */
  postWindowMs: number;
  maxPostsPerDevice: number;
  maxPostBytesPerDevice: number;
  maxPostsPerSession: number;
  maxPostBytesPerSession: number;
}

/** The default blob limit in MiB: a sealed 256 MiB checkpoint (bench:handoff-scale's largest) fits with room. */
export const DEFAULT_MAX_BLOB_MIB = 1024;

export const DEFAULT_LIMITS: Readonly<BackendLimits> = {
  maxBlobBytes: DEFAULT_MAX_BLOB_MIB * 1024 * 1024,
  maxJsonBytes: 8 * 1024 * 1024,
  maxSelfBodyBytes: 64 * 1024,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  minBodyBytesPerSecond: 4 * 1024,
  bodyRateWindowMs: 10_000,
  maxUploadsPerDevice: 2,
  maxUploadsPerAccount: 4,
  maxStreamsPerDevice: 4,
  maxInviteTtlMs: MAX_INVITE_TTL_MS,
  postWindowMs: 60_000,
  maxPostsPerDevice: 60,
  maxPostBytesPerDevice: 1024 * 1024,
  maxPostsPerSession: 120,
  maxPostBytesPerSession: 2 * 1024 * 1024,
};

/** The defaults with `overrides` applied; throws on a value that is not a positive number or an invite cap over an hour. */
export function resolveLimits(overrides: Partial<BackendLimits> = {}): BackendLimits {
  const limits = { ...DEFAULT_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`backend limit ${name} must be a positive number, got ${String(value)}`);
  }
  if (limits.maxInviteTtlMs > MAX_INVITE_TTL_MS) throw new Error('backend limit maxInviteTtlMs may be at most an hour');
  return limits;
}

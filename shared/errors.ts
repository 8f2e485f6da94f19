/**
 * Error codes that cross a boundary (HTTP API, device API, CLI). Every refusal is a value
 * `{ code, message, details? }`; the HTTP status for each API code is fixed here once.
 */

export const API_ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  body_too_large: 413,
  length_required: 411,
  body_too_slow: 408,
  too_many_uploads: 429,
  rate_limited: 429,
  unauthorized: 401,
  device_revoked: 401,
  clock_skew: 401,
  replayed_nonce: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  state_mismatch: 409,
  illegal_transition: 409,
  stale_generation: 409,
  not_owner: 409,
  handoff_in_progress: 409,
  not_cancellable: 409,
  idempotency_conflict: 422,
  digest_mismatch: 422,
  invite_invalid: 403,
  invite_expired: 410,
  invite_used: 409,
  join_pending: 409,
  invite_lifetime_too_long: 400,
  key_versions_incomplete: 422,
  key_version_outdated: 409,
  already_exists: 409,
  internal: 500,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> };
}

/** A refusal carried as a value. */
export interface Failure<C extends string = string> {
  ok: false;
  code: C;
  message: string;
  details?: Record<string, unknown>;
}

export interface Success<T> {
  ok: true;
  value: T;
}

/** Every fallible call answers one of these; a call that yields nothing succeeds as `ok(undefined)`. */
export type Result<T, C extends string = string> = Success<T> | Failure<C>;

/** A code with one plain sentence: why something was refused, cancelled or is not eligible. */
export interface CodedMessage {
  code: string;
  message: string;
}

/** What an act that yields nothing answers: done, or refused with a code (the device API's acts). */
export type ActionResult = Result<void>;

export function ok<T>(value: T): Success<T> {
  return { ok: true, value };
}

export function fail<C extends string>(code: C, message: string, details?: Record<string, unknown>): Failure<C> {
  return details === undefined ? { ok: false, code, message } : { ok: false, code, message, details };
}

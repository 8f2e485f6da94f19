/**
 * What a backend call answers: the route's response, or a failure as a value with the API's error
 * code (or the client's own, when the backend was not reached or answered nonsense). Both the JSON
 * calls (backend-client.ts) and the blob transfers (blob-transfer.ts) answer this.
 */
import type { ApiErrorCode, Success } from '../../shared/errors.ts';

/** Codes a call can fail with: the API's, or the client's own. */
export type ClientErrorCode =
  ApiErrorCode | 'unreachable' | 'bad_response' | 'backend_key_mismatch' | 'backend_key_untrusted' | 'backend_plain_http';

export interface CallFailure {
  ok: false;
  /** HTTP status, or 0 when the backend was not reached. */
  status: number;
  code: ClientErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type CallResult<T> = Success<T> | CallFailure;

/** Writing JSON answers and API errors. */
import type { ServerResponse } from 'node:http';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../shared/errors.ts';
import { errorBody } from '../service/context.ts';

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** Writes an API error with the status fixed for its code. */
export function sendError(res: ServerResponse, code: ApiErrorCode, message: string, details?: Record<string, unknown>): void {
  sendJson(res, API_ERROR_STATUS[code], errorBody(code, message, details));
}

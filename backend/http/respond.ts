/** Reading request bodies within a limit and writing JSON answers and API errors. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_ERROR_STATUS, fail, ok, type ApiErrorCode, type Result } from '../../shared/errors.ts';
import { errorBody } from '../service/context.ts';

/** Reads the whole body up to `limit` bytes; a larger one is drained (up to 4× the limit) and refused. */
export function readBody(req: IncomingMessage, limit: number): Promise<Result<Buffer, 'body_too_large'>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > limit * 4) req.destroy();
    });
    req.on('end', () =>
      resolve(size > limit ? fail('body_too_large', `the body is larger than ${limit} bytes`, { limit }) : ok(Buffer.concat(chunks))),
    );
    req.on('close', () => {
      if (req.readableEnded) return;
      if (size > limit) resolve(fail('body_too_large', `the body is larger than ${limit} bytes`, { limit }));
      else reject(new Error('the request body was cut off'));
    });
    req.on('error', () => undefined);
  });
}

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

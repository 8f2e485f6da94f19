/** What every backend service receives: the store, the clock, the push hub, the blob store, an id maker, the limits, retention. */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Device } from '../../shared/api/devices.ts';
import { API_ERROR_STATUS, ok, type ApiErrorCode, type Result } from '../../shared/errors.ts';
import type { RouteName, RouteResponse, routes } from '../../shared/api/routes.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import type { BackendLimits } from '../limits.ts';
import type { RetentionSettings } from '../retention.ts';
import type { PushHub } from '../push/push-hub.ts';
import type { IdempotencyWrite, Store, StoreResult, StoredResponse } from '../store/store.ts';

export interface Deps {
  store: Store;
  clock: () => number;
  push: PushHub;
  blobs: BlobStore;
  /** A fresh random id (accounts, join requests). */
  newId: () => string;
  limits: BackendLimits;
  retention: RetentionSettings;
}

/** A random 128-bit url-safe id. */
export function randomId(): string {
  return randomBytes(16).toString('base64url');
}

/** The idempotency key of the current request, if it carries one. `recorded` is set once stored. */
export interface IdemContext {
  deviceId: string;
  key: string;
  requestDigest: string;
  recorded: boolean;
}

type QueryOf<N extends RouteName> = (typeof routes)[N] extends { query: infer S extends z.ZodType } ? z.infer<S> : Record<string, never>;
type BodyOf<N extends RouteName> = (typeof routes)[N] extends { body: infer S extends z.ZodType } ? z.infer<S> : undefined;

/** One validated request, as a handler sees it. */
export interface Call<N extends RouteName> {
  caller: Device;
  params: Record<string, string>;
  query: QueryOf<N>;
  body: BodyOf<N>;
  idem: IdemContext | undefined;
}

/** A request signed by the key it carries in its body (account creation, join request). */
export type SelfCall<N extends RouteName> = Omit<Call<N>, 'caller'>;

export type Answer<N extends RouteName> = Promise<Result<RouteResponse<N>, ApiErrorCode>>;

/** The JSON body of an API error. */
export function errorBody(
  code: ApiErrorCode,
  message: string,
  details?: Record<string, unknown>,
): { error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> } } {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** How a result goes over the wire (status and JSON body). */
export function encodeResult<T>(result: Result<T, ApiErrorCode>): StoredResponse {
  return result.ok
    ? { status: 200, body: result.value }
    : { status: API_ERROR_STATUS[result.code], body: errorBody(result.code, result.message, result.details) };
}

/** Turns the request's idempotency key into a store write that records `wrap(value)` with the change. */
export function idemWrite<T, R>(idem: IdemContext | undefined, wrap: (value: T) => R): IdempotencyWrite<T> | undefined {
  if (!idem) return undefined;
  return Object.assign(idem, { encode: (result: StoreResult<T>) => encodeResult(result.ok ? ok(wrap(result.value)) : result) });
}

/** Maps a store result to the route's answer with `wrap`. */
export function answer<T, R>(result: StoreResult<T>, wrap: (value: T) => R): Result<R, ApiErrorCode> {
  return result.ok ? ok(wrap(result.value)) : result;
}

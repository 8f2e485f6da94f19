/**
 * One request's path through the backend, in this order:
 *   route → signature headers and the declared body (size, digest) → clock skew → size limit from
 *   the headers (413 unread) → device → signature over the declared body → nonce → enrolment →
 *   [blobs: digest = address → upload slot] → body, read at a minimum pace and checked against
 *   its declared digest → query, params, body validation → idempotency → handler.
 * Nothing of a device's body is read before its signature verifies. Account creation and join
 * requests carry their key in the body: that body (at most `maxSelfBodyBytes`) is read first.
 * Every refusal is a JSON error with its fixed status; one answered before the body was read closes
 * the connection (so the body is never drained). An unexpected throw is logged on one line and
 * answered 500 without details.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { Id } from '../../shared/api/common.ts';
import type { Device } from '../../shared/api/devices.ts';
import type { RouteName, RouteSpec } from '../../shared/api/routes.ts';
import { canonicalRequest, MAX_CLOCK_SKEW_MS, SIGNATURE_HEADERS } from '../../shared/request-signing.ts';
import type { ApiErrorBody, ApiErrorCode, Failure, Result } from '../../shared/errors.ts';
import { checkClockSkew, readSignatureHeaders, type SignatureHeaders, type SignatureVerifier } from '../auth/signature.ts';
import { encodeResult, type Call, type Deps, type IdemContext } from '../service/context.ts';
import { deviceHandlers, selfHandlers } from './handlers.ts';
import { matchRoute } from './router.ts';
import { sendError, sendJson } from './respond.ts';
import { openStream } from './sse.ts';
import { putBlob, sendBlob } from './blob-routes.ts';
import { readDeclaredBuffer, type BodyCode, type BodyPace } from './body-reader.ts';
import type { UploadSlots } from './upload-slots.ts';
import type { BackendLimits } from '../limits.ts';

export interface HttpApp {
  deps: Deps;
  verifier: SignatureVerifier;
  /** Blob uploads in progress, capped per device and account. */
  uploads: UploadSlots;
  /** The minimum pace of request bodies. */
  pace: BodyPace;
  /** Interval of the push stream's keep-alive comments. */
  streamHeartbeatMs: number;
  /** One line per unexpected failure; never given secrets or bodies. */
  log: (line: string) => void;
}

type Refusal = { ok: false; code: ApiErrorCode; message: string; details?: Record<string, unknown> };
type AnyHandler = (deps: Deps, call: Call<RouteName>) => Promise<Result<unknown, ApiErrorCode>>;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,128}$/;
const EmptyQuery = z.strictObject({});

/** Handles one request; never throws. */
export async function handleRequest(app: HttpApp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const refusal = await route(app, req, res);
    if (!refusal) return;
    if (!req.complete) res.setHeader('connection', 'close');
    sendError(res, refusal.code, refusal.message, refusal.details);
  } catch (error) {
    app.log(`backend: ${req.method ?? '?'} ${(req.url ?? '').split('?')[0]} failed: ${(error as Error).message}`);
    if (!res.headersSent) sendError(res, 'internal', 'the backend failed to handle this request');
    else res.destroy();
  }
}

const refuse = (code: ApiErrorCode, message: string, details?: Record<string, unknown>): Refusal =>
  details === undefined ? { ok: false, code, message } : { ok: false, code, message, details };

const issues = (error: z.ZodError, where: string) =>
  refuse(
    'validation_failed',
    `invalid ${where}: ${error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`.slice(0, 1000),
    {
      issues: error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message })),
    },
  );

async function route(app: HttpApp, req: IncomingMessage, res: ServerResponse): Promise<Refusal | undefined> {
  const { deps } = app;
  const url = req.url ?? '/';
  const pathname = url.split('?')[0]!;
  const match = matchRoute(req.method ?? '', pathname);
  if (!match.ok) return refuse(match.code, match.code === 'not_found' ? 'no such route' : 'method not allowed on this route');
  const { name, spec, params } = match;
  if (spec.auth === 'none') {
    const reachable = await deps.store.reachable();
    return void sendJson(res, reachable ? 200 : 503, {
      ok: reachable,
      store: { kind: deps.store.kind, reachable },
      maxBlobBytes: deps.limits.maxBlobBytes,
      keepCheckpoints: deps.retention.keepCompleted,
    });
  }

  const headers = readSignatureHeaders(req.headers);
  if (!headers.ok) return headers;
  const sig = headers.value;
  const now = deps.clock();
  const skew = checkClockSkew(sig.timestamp, now);
  if (skew) return skew;
  const limit = bodyLimit(deps.limits, name, spec);
  if (sig.body.size > limit) return refuse('body_too_large', `the body is larger than ${limit} bytes`, { limit, declared: sig.body.size });

  let device: Device | undefined;
  let body: Buffer;
  let parsedBody: unknown;
  if (spec.auth === 'self') {
    // The key to verify with is in the body, so this (small) body is read first.
    const read = await readDeclaredBuffer(req, sig.body, app.pace);
    if (!read.ok) return bodyFailure(app, req, read);
    body = read.value;
    const parsed = parseJson(spec.body!, body);
    if (!parsed.ok) return parsed;
    parsedBody = parsed.value;
    const self = parsed.value as { deviceId: string; keys: { signingPublicKey: string } };
    if (self.deviceId !== sig.deviceId) return refuse('unauthorized', 'the request must be signed by the device it names');
    const denied = await verify(app, req, sig, self.keys.signingPublicKey);
    if (denied) return denied;
  } else {
    device = await deps.store.getDevice(sig.deviceId);
    if (!device) return refuse('unauthorized', 'unknown device');
    if (device.status === 'revoked') return refuse('device_revoked', 'this device has been revoked');
    const denied = await authenticate(app, req, sig, device, spec);
    if (denied) return denied;
    if (name === 'putBlob') {
      const refused = await putBlob(deps, app.uploads, app.pace, req, res, device, params.digest!, sig.body);
      return refused && bodyFailure(app, req, refused);
    }
    const read = await readDeclaredBuffer(req, sig.body, app.pace);
    if (!read.ok) return bodyFailure(app, req, read);
    body = read.value;
  }

  const query = (spec.query ?? EmptyQuery).safeParse(Object.fromEntries(new URLSearchParams(url.slice(pathname.length))));
  if (!query.success) return issues(query.error, 'query');
  for (const [key, value] of Object.entries(params)) {
    if (key !== 'digest' && !Id.safeParse(value).success) return refuse('not_found', `no such ${key.replace(/Id$/, '')}`);
  }
  if (spec.body && spec.auth !== 'self') {
    const parsed = parseJson(spec.body, body);
    if (!parsed.ok) return parsed;
    parsedBody = parsed.value;
  }

  if (name === 'stream') {
    const stream = {
      hub: deps.push,
      device: device!,
      now,
      heartbeatMs: app.streamHeartbeatMs,
      maxPerDevice: deps.limits.maxStreamsPerDevice,
    };
    return void (await openStream({ ...stream, lastEventId: req.headers['last-event-id'] }, res));
  }
  if (name === 'getBlob') return void (await sendBlob(deps, device!, params.digest!, res));

  let idem: IdemContext | undefined;
  const key = req.headers[SIGNATURE_HEADERS.idempotencyKey];
  if (spec.method !== 'GET' && key !== undefined) {
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))
      return refuse('validation_failed', 'the idempotency key must be 8–128 url-safe characters');
    idem = { deviceId: sig.deviceId, key, requestDigest: sha256(`${spec.method}\n${url}\n${sig.body.sha256}`), recorded: false };
    const replay = await replayIdempotent(app, idem, res);
    if (replay !== false) return replay;
  }

  const call = { caller: device!, params, query: query.data, body: parsedBody, idem } as Call<RouteName>;
  let result: Result<unknown, ApiErrorCode>;
  try {
    result =
      name === 'createAccount' || name === 'createJoinRequest'
        ? await (selfHandlers[name] as unknown as AnyHandler)(deps, call)
        : await (deviceHandlers[name as keyof typeof deviceHandlers] as unknown as AnyHandler)(deps, call);
  } catch (error) {
    if (idem && (await replayIdempotent(app, idem, res)) !== false) return undefined;
    throw error;
  }
  const answer = encodeResult(result);
  // Answered once the change's push messages have their place in the log: a change made after the
  // answer, through any instance, is published after them and comes after them in every stream.
  await Promise.all([
    spec.method !== 'GET' && deps.push.published(),
    idem && !idem.recorded && deps.store.saveIdempotent({ ...idem, ...answer }, deps.clock()),
  ]);
  sendJson(res, answer.status, answer.body, retryAfter(answer.body));
  return undefined;
}

/** The Retry-After header of an answer that is a `rate_limited` refusal (whole seconds from its `retryAfterMs`); none for another. */
function retryAfter(body: unknown): Record<string, string> {
  const error = (body as Partial<ApiErrorBody> | null)?.error;
  if (error?.code !== 'rate_limited') return {};
  const ms = typeof error.details?.retryAfterMs === 'number' ? error.details.retryAfterMs : 1_000;
  return { 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** The largest body a route takes, known from its headers before reading. */
function bodyLimit(limits: BackendLimits, name: RouteName, spec: RouteSpec): number {
  if (name === 'putBlob') return limits.maxBlobBytes;
  if (spec.method === 'GET') return 0;
  return spec.auth === 'self' ? limits.maxSelfBodyBytes : limits.maxJsonBytes;
}

/** A body that did not arrive as declared: a digest mismatch is answered; a cut-off one has nobody left to answer (noted on one line). */
function bodyFailure(app: HttpApp, req: IncomingMessage, failure: Failure<ApiErrorCode | BodyCode>): Refusal | undefined {
  if (failure.code !== 'body_cut_off' && failure.code !== 'body_too_slow') return failure as Refusal;
  if (failure.code === 'body_too_slow')
    app.log(`backend: ${req.method ?? '?'} ${(req.url ?? '').split('?')[0]} cut off: ${failure.message}`);
  req.socket.destroy();
  return undefined;
}

/** Parses a JSON body and validates it against the route's (strict) schema. */
function parseJson(schema: z.ZodType, bytes: Buffer): { ok: true; value: unknown } | Refusal {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return refuse('invalid_json', 'the body is not valid JSON');
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : issues(parsed.error, 'body');
}

/** Answers from the idempotency record if there is one: the first answer, or a conflict. False when none. */
async function replayIdempotent(app: HttpApp, idem: IdemContext, res: ServerResponse): Promise<Refusal | undefined | false> {
  const previous = await app.deps.store.findIdempotent(idem.deviceId, idem.key);
  if (!previous) return false;
  if (previous.requestDigest !== idem.requestDigest) {
    return refuse('idempotency_conflict', 'this idempotency key was used for a different request');
  }
  sendJson(res, previous.status, previous.body, { 'idempotent-replayed': 'true', ...retryAfter(previous.body) });
  return undefined;
}

/** Verifies a known device's signature and nonce, then that the route admits its status. */
async function authenticate(
  app: HttpApp,
  req: IncomingMessage,
  sig: SignatureHeaders,
  device: Device,
  spec: RouteSpec,
): Promise<Refusal | undefined> {
  const denied = await verify(app, req, sig, device.signingPublicKey);
  if (denied) return denied;
  if (device.status !== 'enrolled' && spec.auth !== 'pending') return refuse('forbidden', 'this device is not enrolled yet');
  return undefined;
}

/** Checks the Ed25519 signature over the canonical request (the declared body included), then spends the nonce. */
async function verify(app: HttpApp, req: IncomingMessage, sig: SignatureHeaders, publicKey: string): Promise<Refusal | undefined> {
  const canonical = canonicalRequest({
    method: req.method ?? '',
    pathAndQuery: req.url ?? '/',
    bodySize: sig.body.size,
    bodySha256: sig.body.sha256,
    timestamp: sig.timestamp,
    nonce: sig.nonce,
    deviceId: sig.deviceId,
  });
  if (!app.verifier.verify(publicKey, canonical, sig.signature)) return refuse('unauthorized', 'the signature does not verify');
  const now = app.deps.clock();
  const fresh = await app.deps.store.useNonce(sig.deviceId, sig.nonce, Math.max(now, sig.timestamp) + MAX_CLOCK_SKEW_MS);
  if (!fresh) return refuse('replayed_nonce', 'this nonce was already used');
  return undefined;
}

/**
 * Every backend route, declared once. The server registers handlers by these names and the
 * device's client calls them by name, so paths, methods and schemas live in one place.
 *
 * auth:
 *   none      — open (health)
 *   self      — signed by a key carried in the body (account creation, join request)
 *   device    — signed by an enrolled device of the account
 *   pending   — signed by an enrolled device, or by a pending device about its own join
 * Resources of another account answer 404 so existence does not leak.
 */
import { z } from 'zod';
import {
  ApproveJoinRequest,
  CreateAccountRequest,
  CreateAccountResponse,
  CreateInviteRequest,
  CreateJoinRequest,
  DeviceListResponse,
  HeartbeatRequest,
  HeartbeatResponse,
  Invite,
  JoinRequest,
  JoinRequestListResponse,
  KeysResponse,
  MeResponse,
  RejectJoinRequest,
  RotateKeysRequest,
  Device,
} from './devices.ts';
import { CreateHandoffRequest, HANDOFF_PAGE_MAX, HandoffListResponse, HandoffResponse, TransitionRequest } from './handoffs.ts';
import { MemoryListResponse, PutMemoryRequest, MemoryItem } from './memory.ts';
import {
  AnswerPage,
  AppendEventRequest,
  CreateSessionRequest,
  EventPage,
  PostAnswerRequest,
  SessionAnswer,
  Session,
  SessionListResponse,
  UpdateSessionMetaRequest,
  SessionEvent,
} from './sessions.ts';

export type AuthMode = 'none' | 'self' | 'device' | 'pending';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT';
  /** Path with `:param` segments, always under /v1 (except health). */
  path: string;
  auth: AuthMode;
  /** Body schema (JSON routes); undefined for GET and for raw-body routes. */
  body?: z.ZodType;
  /** Query schema, where the route takes one. */
  query?: z.ZodType;
  response: z.ZodType;
  /** Raw octet-stream body or response instead of JSON (blobs). */
  raw?: boolean;
}

const Empty = z.strictObject({});
const BlobRef = z.strictObject({ digest: z.string(), size: z.number().int().nonnegative() });

export const routes = {
  /**
   * Open: the backend answers, the largest blob (sealed checkpoint) it takes, and how many completed moves
   * of each session keep their checkpoint (both absent from older backends).
   */
  health: {
    method: 'GET',
    path: '/healthz',
    auth: 'none',
    // 200 when the store answers, 503 when it does not; never the connection string.
    response: z.strictObject({
      ok: z.boolean(),
      store: z.strictObject({ kind: z.enum(['sqlite', 'postgres']), reachable: z.boolean() }),
      maxBlobBytes: z.number().int().positive().optional(),
      keepCheckpoints: z.number().int().nonnegative().optional(),
    }),
  },

  createAccount: { method: 'POST', path: '/v1/accounts', auth: 'self', body: CreateAccountRequest, response: CreateAccountResponse },
  me: { method: 'GET', path: '/v1/me', auth: 'pending', response: MeResponse },

  listDevices: { method: 'GET', path: '/v1/devices', auth: 'device', response: DeviceListResponse },
  heartbeat: { method: 'POST', path: '/v1/devices/heartbeat', auth: 'device', body: HeartbeatRequest, response: HeartbeatResponse },
  revokeDevice: {
    method: 'POST',
    path: '/v1/devices/:deviceId/revoke',
    auth: 'device',
    body: Empty,
    response: z.strictObject({ device: Device }),
  },

  createInvite: {
    method: 'POST',
    path: '/v1/invites',
    auth: 'device',
    body: CreateInviteRequest,
    response: z.strictObject({ invite: Invite }),
  },
  createJoinRequest: {
    method: 'POST',
    path: '/v1/join-requests',
    auth: 'self',
    body: CreateJoinRequest,
    response: z.strictObject({ joinRequest: JoinRequest }),
  },
  listJoinRequests: {
    method: 'GET',
    path: '/v1/join-requests',
    auth: 'device',
    query: z.strictObject({ status: z.enum(['pending', 'approved', 'rejected']).optional() }),
    response: JoinRequestListResponse,
  },
  getJoinRequest: {
    method: 'GET',
    path: '/v1/join-requests/:joinRequestId',
    auth: 'pending',
    response: z.strictObject({ joinRequest: JoinRequest }),
  },
  approveJoinRequest: {
    method: 'POST',
    path: '/v1/join-requests/:joinRequestId/approve',
    auth: 'device',
    body: ApproveJoinRequest,
    response: z.strictObject({ joinRequest: JoinRequest }),
  },
  rejectJoinRequest: {
    method: 'POST',
    path: '/v1/join-requests/:joinRequestId/reject',
    auth: 'device',
    body: RejectJoinRequest,
    response: z.strictObject({ joinRequest: JoinRequest }),
  },

  getKeys: { method: 'GET', path: '/v1/keys', auth: 'device', response: KeysResponse },
  rotateKeys: { method: 'POST', path: '/v1/keys/rotate', auth: 'device', body: RotateKeysRequest, response: KeysResponse },

  createSession: {
    method: 'POST',
    path: '/v1/sessions',
    auth: 'device',
    body: CreateSessionRequest,
    response: z.strictObject({ session: Session }),
  },
  listSessions: { method: 'GET', path: '/v1/sessions', auth: 'device', response: SessionListResponse },
  getSession: { method: 'GET', path: '/v1/sessions/:sessionId', auth: 'device', response: z.strictObject({ session: Session }) },
  updateSessionMeta: {
    method: 'PUT',
    path: '/v1/sessions/:sessionId/meta',
    auth: 'device',
    body: UpdateSessionMetaRequest,
    response: z.strictObject({ session: Session }),
  },
  appendEvent: {
    method: 'POST',
    path: '/v1/sessions/:sessionId/events',
    auth: 'device',
    body: AppendEventRequest,
    response: z.strictObject({ event: SessionEvent }),
  },
  listEvents: {
    method: 'GET',
    path: '/v1/sessions/:sessionId/events',
    auth: 'device',
    query: z.strictObject({
      after: z.coerce.number().int().nonnegative().optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
    response: EventPage,
  },
  /** Any device of the account, at the session's generation: a sealed answer to a permission request, for the owner. */
  postAnswer: {
    method: 'POST',
    path: '/v1/sessions/:sessionId/answers',
    auth: 'device',
    body: PostAnswerRequest,
    response: z.strictObject({ answer: SessionAnswer }),
  },
  listAnswers: {
    method: 'GET',
    path: '/v1/sessions/:sessionId/answers',
    auth: 'device',
    query: z.strictObject({
      after: z.coerce.number().int().nonnegative().optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
    response: AnswerPage,
  },

  createHandoff: { method: 'POST', path: '/v1/handoffs', auth: 'device', body: CreateHandoffRequest, response: HandoffResponse },
  listHandoffs: {
    method: 'GET',
    path: '/v1/handoffs',
    auth: 'device',
    /** With `limit`: one page, newest first, of those created before the handoff `before` (a cursor: the last one of the page before). */
    query: z.strictObject({
      sessionId: z.string().optional(),
      active: z.enum(['true', 'false']).optional(),
      limit: z.coerce.number().int().min(1).max(HANDOFF_PAGE_MAX).optional(),
      before: z.string().min(1).max(200).optional(),
    }),
    response: HandoffListResponse,
  },
  getHandoff: { method: 'GET', path: '/v1/handoffs/:handoffId', auth: 'device', response: HandoffResponse },
  transitionHandoff: {
    method: 'POST',
    path: '/v1/handoffs/:handoffId/transitions',
    auth: 'device',
    body: TransitionRequest,
    response: HandoffResponse,
  },

  putBlob: { method: 'PUT', path: '/v1/blobs/:digest', auth: 'device', raw: true, response: BlobRef },
  getBlob: { method: 'GET', path: '/v1/blobs/:digest', auth: 'device', raw: true, response: z.unknown() },

  putMemory: { method: 'POST', path: '/v1/memory', auth: 'device', body: PutMemoryRequest, response: z.strictObject({ item: MemoryItem }) },
  listMemory: {
    method: 'GET',
    path: '/v1/memory',
    auth: 'device',
    query: z.strictObject({ topic: z.string() }),
    response: MemoryListResponse,
  },

  stream: { method: 'GET', path: '/v1/stream', auth: 'device', response: z.unknown() },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof routes;
export type RouteBody<N extends RouteName> = (typeof routes)[N] extends { body: infer S extends z.ZodType } ? z.infer<S> : undefined;
export type RouteResponse<N extends RouteName> = z.infer<(typeof routes)[N]['response']>;

/** Fill `:param` segments of a route path; every value is URI-encoded. */
export function routePath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** The runtime's BackendPort over the signed sync client (names and schemas from the route table). */
import type { Result } from '../../../shared/errors.ts';
import type { BackendClient } from '../../sync/backend-client.ts';
import type { CallResult } from '../../sync/call-result.ts';
import { EVENT_PAGE_SIZE, type BackendPort } from '../../ports/backend.ts';

/** Drops the HTTP status, keeping the code, message and details of a failure. */
function plain<T, U>(result: CallResult<T>, pick: (value: T) => U): Result<U> {
  if (result.ok) return { ok: true, value: pick(result.value) };
  return { ok: false, code: result.code, message: result.message, ...(result.details ? { details: result.details } : {}) };
}

/** How long the backend's published blob limit is taken as known (it changes only when the backend restarts). */
const BLOB_LIMIT_TTL_MS = 5 * 60_000;

/** Adapts `client` to the calls the device runtime makes. */
export function backendPort(client: BackendClient): BackendPort {
  let limit: { bytes: number | null; at: number } | null = null;
  return {
    listDevices: async () => plain(await client.call('listDevices'), (v) => v.devices),
    heartbeat: async (sealedCapabilities, keyVersions) =>
      plain(await client.call('heartbeat', { body: { sealedCapabilities, keyVersions } }), (v) => v),
    createSession: async (sessionId, sealedMeta) =>
      plain(
        await client.call('createSession', { body: { sessionId, sealedMeta }, idempotencyKey: `create-${sessionId}` }),
        (v) => v.session,
      ),
    getSession: async (sessionId) => plain(await client.call('getSession', { params: { sessionId } }), (v) => v.session),
    listSessions: async () => plain(await client.call('listSessions'), (v) => v.sessions),
    updateSessionMeta: async (sessionId, generation, sealedMeta) =>
      plain(await client.call('updateSessionMeta', { params: { sessionId }, body: { generation, sealedMeta } }), (v) => v.session),
    appendEvent: async (sessionId, generation, sealedBody) =>
      plain(await client.call('appendEvent', { params: { sessionId }, body: { generation, sealedBody } }), (v) => v.event),
    listEvents: async (sessionId, after) =>
      plain(await client.call('listEvents', { params: { sessionId }, query: { after, limit: EVENT_PAGE_SIZE } }), (v) => v.events),
    postAnswer: async (sessionId, generation, sealedBody, idempotencyKey) =>
      plain(await client.call('postAnswer', { params: { sessionId }, body: { generation, sealedBody }, idempotencyKey }), (v) => v.answer),
    listAnswers: async (sessionId, after) =>
      plain(await client.call('listAnswers', { params: { sessionId }, query: { after, limit: EVENT_PAGE_SIZE } }), (v) => v.answers),
    createHandoff: async (request) =>
      plain(await client.call('createHandoff', { body: request, idempotencyKey: `create-${request.handoffId}` }), (v) => v.handoff),
    getHandoff: async (handoffId) => plain(await client.call('getHandoff', { params: { handoffId } }), (v) => v.handoff),
    listHandoffs: async ({ sessionId, active, limit, before }) => {
      const query: { sessionId?: string; active?: 'true' | 'false'; limit?: number; before?: string } = {};
      if (sessionId !== undefined) query.sessionId = sessionId;
      if (active !== undefined) query.active = active ? 'true' : 'false';
      if (limit !== undefined) query.limit = limit;
      if (before !== undefined) query.before = before;
      return plain(await client.call('listHandoffs', { query }), (v) => v.handoffs);
    },
    transition: async (handoffId, request, idempotencyKey) =>
      plain(await client.call('transitionHandoff', { params: { handoffId }, body: request, idempotencyKey }), (v) => v.handoff),
    putBlob: async (digest, bytes) => plain(await client.putBlob(digest, bytes), (v) => v),
    putBlobFile: async (file, onProgress) => plain(await client.putBlobFile(file, onProgress), (v) => v),
    getBlob: async (digest) => plain(await client.getBlob(digest), (v) => v),
    getBlobTo: async (digest, sink, onProgress) => plain(await client.getBlobTo(digest, sink, onProgress), (v) => v),
    listJoinRequests: async () => plain(await client.call('listJoinRequests', { query: { status: 'pending' } }), (v) => v.joinRequests),
    blobLimit: async () => {
      // Asked once every few minutes, so a Move costs no extra round trip; an unanswered ask is not kept.
      if (limit !== null && Date.now() - limit.at < BLOB_LIMIT_TTL_MS) return limit.bytes;
      const health = await client.call('health');
      if (!health.ok) return limit?.bytes ?? null;
      limit = { bytes: health.value.maxBlobBytes ?? null, at: Date.now() };
      return limit.bytes;
    },
  };
}

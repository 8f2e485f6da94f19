/** Sessions and their append-only sealed event log. The backend sees ids and generations only. */
import { z } from 'zod';
import { B64, Generation, Id, Millis } from './common.ts';

export const Session = z.strictObject({
  id: Id,
  accountId: Id,
  ownerDeviceId: Id,
  generation: Generation,
  /** Title, workspace, provider… sealed under the ADK. */
  sealedMeta: B64(),
  createdAt: Millis,
  updatedAt: Millis,
});
export type Session = z.infer<typeof Session>;

/** POST /v1/sessions — the creating device becomes owner at generation 1. */
export const CreateSessionRequest = z.strictObject({ sessionId: Id, sealedMeta: B64() });

/** PUT /v1/sessions/:id/meta — fenced by owner and generation. */
export const UpdateSessionMetaRequest = z.strictObject({ generation: Generation, sealedMeta: B64() });

/** POST /v1/sessions/:id/events — append, fenced by owner and generation. */
export const AppendEventRequest = z.strictObject({ generation: Generation, sealedBody: B64(4 << 20) });

export const SessionEvent = z.strictObject({
  sessionId: Id,
  /** 1, 2, 3… per session: the read cursor. */
  seq: z.number().int().positive(),
  generation: Generation,
  deviceId: Id,
  sealedBody: B64(4 << 20),
  createdAt: Millis,
});
export type SessionEvent = z.infer<typeof SessionEvent>;

/** GET /v1/sessions/:id/events?after=SEQ&limit=N */
export const EventPage = z.strictObject({ events: z.array(SessionEvent), nextCursor: z.number().int().nonnegative() });

export const SessionListResponse = z.strictObject({ sessions: z.array(Session) });

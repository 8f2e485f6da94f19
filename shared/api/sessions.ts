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

/** One entry of a session's sealed log (events, answers): numbered 1, 2, 3… per session, the read cursor. */
const sealedLogEntry = (bodyMax: number) =>
  z.strictObject({
    sessionId: Id,
    seq: z.number().int().positive(),
    generation: Generation,
    /** The device that wrote it (as the backend authenticated it). */
    deviceId: Id,
    sealedBody: B64(bodyMax),
    createdAt: Millis,
  });

export const SessionEvent = sealedLogEntry(4 << 20);
export type SessionEvent = z.infer<typeof SessionEvent>;

/** GET /v1/sessions/:id/events?after=SEQ&limit=N */
export const EventPage = z.strictObject({ events: z.array(SessionEvent), nextCursor: z.number().int().nonnegative() });

export const SessionListResponse = z.strictObject({ sessions: z.array(Session) });

/**
 * POST /v1/sessions/:id/answers — a device's sealed, signed answer to a permission request of the
 * session (electron/runtime/permissions/): any enrolled device of the account may post one, fenced by
 * generation only (`stale_generation` once the session moved); the owner applies it. The backend
 * sees which device answered at which generation, never what was asked or answered.
 */
export const PostAnswerRequest = z.strictObject({ generation: Generation, sealedBody: B64(64 << 10) });

export const SessionAnswer = sealedLogEntry(64 << 10);
export type SessionAnswer = z.infer<typeof SessionAnswer>;

/** GET /v1/sessions/:id/answers?after=SEQ&limit=N */
export const AnswerPage = z.strictObject({ answers: z.array(SessionAnswer), nextCursor: z.number().int().nonnegative() });

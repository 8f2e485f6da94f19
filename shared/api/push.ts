/**
 * The push stream: GET /v1/stream (server-sent events, one JSON `PushMessage` per `data:` line).
 * Every change in the caller's account is delivered; devices react instead of polling.
 */
import { z } from 'zod';
import { Id } from './common.ts';
import { Device, JoinRequest } from './devices.ts';
import { Handoff } from './handoffs.ts';
import { Session } from './sessions.ts';

export const PushMessage = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), deviceId: Id, serverTime: z.number() }),
  z.strictObject({ type: z.literal('handoff'), handoff: Handoff }),
  z.strictObject({ type: z.literal('session'), session: Session }),
  z.strictObject({ type: z.literal('session-event'), sessionId: Id, seq: z.number().int().positive() }),
  /** A device answered a permission request of the session (the owner reads it: listAnswers). */
  z.strictObject({ type: z.literal('session-answer'), sessionId: Id, seq: z.number().int().positive() }),
  z.strictObject({ type: z.literal('device'), device: Device }),
  z.strictObject({ type: z.literal('join-request'), joinRequest: JoinRequest }),
  z.strictObject({ type: z.literal('keys'), currentVersion: z.number().int().positive() }),
  z.strictObject({ type: z.literal('memory'), topic: z.string() }),
]);
export type PushMessage = z.infer<typeof PushMessage>;

/**
 * The stream's response header: `replayed` when the backend replays, before anything new, every
 * message the device missed since the `Last-Event-ID` it sent; `full` when the device must re-read.
 */
export const PUSH_REPLAY_HEADER = 'baton-replay';

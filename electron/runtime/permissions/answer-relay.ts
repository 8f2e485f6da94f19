/**
 * Answers that cross devices. A device that does not own the session seals its answer to the
 * session (AES-GCM under the account key, bound to the session) and signs it with its own device
 * key — answer id, session, generation, request, decision, message, device, time — and posts it to
 * the backend, which keeps it only at the session's current generation. The owner reads each new
 * post once (session-posts.ts) and applies an answer only when it opens for this session, names the
 * device the backend says sent it, carries a valid signature of that enrolled device, is not a
 * replay and is bound to the generation it was posted at; the broker then applies it only to a
 * request still pending at that generation. Every refusal is recorded in the device log, and told in
 * the transcript at most once a minute (refusal-notes.ts). The sender answers only a request its own
 * record holds pending at that generation, and the backend caps what one device posts (429).
 */
import { z } from 'zod';
import type { Device } from '../../../shared/api/devices.ts';
import type { SessionAnswer } from '../../../shared/api/sessions.ts';
import { fail, ok, type ActionResult } from '../../../shared/errors.ts';
import { PermissionAnswerSchema, type PermissionAnswer } from '../../../shared/permission-request.ts';
import { newId } from '../../crypto/new-id.ts';
import type { LocalState } from '../../local-state/local-state.ts';
import { ANSWER_IDS_KEPT } from '../../local-state/session-permissions.ts';
import type { BackendPort } from '../../ports/backend.ts';
import type { Clock } from '../../ports/clock.ts';
import type { SealPort } from '../../ports/seal.ts';
import type { PostHandler } from '../session-posts.ts';
import type { EventSender } from '../sessions/event-sender.ts';
import { postLaterMessage, signPost, verifyPost } from '../signed-posts.ts';
import { RefusalNotes } from './refusal-notes.ts';
import type { PermissionBroker } from './permission-broker.ts';

const SignedAnswerSchema = z.strictObject({
  answerId: z.string().min(1).max(64),
  sessionId: z.string().min(1).max(64),
  generation: z.number().int().positive(),
  requestId: z.string().min(1).max(200),
  answer: PermissionAnswerSchema,
  deviceId: z.string().min(1).max(64),
  at: z.number(),
  signature: z.string().max(200),
});
type SignedAnswer = z.infer<typeof SignedAnswerSchema>;

/** The fields a device signs for an answer: every one but the signature, in a fixed order. */
function signedFields(body: Omit<SignedAnswer, 'signature'>): (string | number)[] {
  const fields = ['baton-permission-answer/1', body.answerId, body.sessionId, body.generation, body.requestId];
  fields.push(body.answer.decision, body.answer.message ?? '', body.deviceId, body.at);
  return fields;
}

export interface AnswerRelayDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  backend: Pick<BackendPort, 'postAnswer'>;
  seal: Pick<SealPort, 'sealJson'>;
  /** This device's signing key. */
  signer: { sign(data: Uint8Array): Uint8Array };
  /** The account's devices as this device knows them (their signing keys and status). */
  device(deviceId: string): Device | undefined;
  broker: Pick<PermissionBroker, 'answer'>;
  events: Pick<EventSender, 'note'>;
  nameOf(deviceId: string): string;
  clock: Clock;
  log(message: string): void;
  /** The shortest time between two refusal notes of one session (default REFUSAL_NOTE_INTERVAL_MS). */
  refusalNoteMs?: number;
}

const MOVED_SINCE = 'The session moved since this was asked, so the answer was not used; the request there is a new one.';

export class AnswerRelay implements PostHandler {
  private readonly notes: RefusalNotes;

  constructor(private readonly deps: AnswerRelayDeps) {
    this.notes = new RefusalNotes({ note: (id, text) => deps.events.note(id, text), log: deps.log, intervalMs: deps.refusalNoteMs });
  }

  /**
   * Sends this device's answer to request `requestId` (asked at `generation`) to the session's owner
   * through the backend; refused here when this device's record does not hold the request pending.
   */
  async send(sessionId: string, requestId: string, generation: number, answer: PermissionAnswer): Promise<ActionResult> {
    const session = this.deps.state.readSession(sessionId);
    // Asked at a generation the session has left: it moved since, which says more than "not pending".
    if (session && session.generation !== generation) return fail('stale_generation', MOVED_SINCE);
    const pending = session?.permissions.pending ?? [];
    if (!pending.some((p) => p.id === requestId && p.generation === generation))
      return fail('request_not_pending', 'This request no longer waits for an answer: it was answered, or its turn ended.');
    const body = { answerId: newId(), sessionId, generation, requestId, answer, deviceId: this.deps.selfId, at: this.deps.clock() };
    const signed: SignedAnswer = { ...body, signature: signPost(this.deps.signer, signedFields(body)) };
    const sealed = this.deps.seal.sealJson(signed, { kind: 'permission-answer', sessionId });
    const posted = await this.deps.backend.postAnswer(sessionId, generation, sealed, `answer-${body.answerId}`);
    if (posted.ok) return ok(undefined);
    this.deps.log(`session ${sessionId}: the answer to ${requestId} was refused: ${posted.code} ${posted.message}`);
    if (posted.code === 'stale_generation') return fail('stale_generation', MOVED_SINCE);
    if (posted.code === 'rate_limited') return fail('rate_limited', postLaterMessage(posted.details, 'answers'));
    return fail(posted.code, posted.message);
  }

  /** Applies one posted answer, opened as `body` (undefined: it opened as nothing), or records why it was refused. */
  async take(sessionId: string, posted: SessionAnswer, body: unknown): Promise<void> {
    const checked = this.check(sessionId, posted, body);
    if (!checked.ok) return this.refused(sessionId, posted.deviceId, checked.message);
    const signed = checked.value;
    this.deps.state.updateSession(sessionId, (s) => {
      s.permissions.seenAnswers = [...s.permissions.seenAnswers, signed.answerId].slice(-ANSWER_IDS_KEPT);
    });
    const { requestId, generation, deviceId } = signed;
    const applied = await this.deps.broker.answer(sessionId, { ...signed.answer, requestId, generation, byDeviceId: deviceId });
    if (!applied.ok) this.refused(sessionId, deviceId, applied.message);
  }

  /** The answer as its device signed it, once every check passed; else why not. */
  private check(
    sessionId: string,
    posted: SessionAnswer,
    opened: unknown,
  ): { ok: true; value: SignedAnswer } | { ok: false; message: string } {
    const parsed = SignedAnswerSchema.safeParse(opened);
    if (!parsed.success) return { ok: false, message: 'it does not open as an answer for this session' };
    const body = parsed.data;
    if (body.sessionId !== sessionId) return { ok: false, message: 'it answers another session' };
    if (body.deviceId !== posted.deviceId) return { ok: false, message: 'it names another device than the one that sent it' };
    if (body.generation !== posted.generation) return { ok: false, message: 'it was posted at another generation than it names' };
    const { signature, ...signed } = body;
    if (!verifyPost(this.deps.device(body.deviceId), signedFields(signed), signature))
      return { ok: false, message: 'it is not signed by an enrolled device of the account' };
    if (this.deps.state.readSession(sessionId)?.permissions.seenAnswers.includes(body.answerId))
      return { ok: false, message: 'it is a replay of an answer already seen' };
    return { ok: true, value: body };
  }

  private refused(sessionId: string, deviceId: string, why: string): void {
    const reason = why.charAt(0).toLowerCase() + why.slice(1).replace(/\.$/, '');
    this.notes.refused(sessionId, this.deps.nameOf(deviceId), reason);
  }

  /** Stops the refusal notes' timers (the device stops). */
  stop(): void {
    this.notes.stop();
  }
}

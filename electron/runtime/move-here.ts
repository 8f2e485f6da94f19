/**
 * Move here: a device that does not own a session asks its owner to move it to itself. Devices
 * never talk to each other, so the request goes as the owner's other inputs do — sealed to the
 * session, signed by the asking device's own key, posted to the backend's log of the session at
 * its generation (which the backend accepts only from an enrolled device of the account, for a
 * session of that account, at the current generation). The owner reads it with the session's other
 * posts (session-posts.ts) and applies it only when it opens for this session, is signed by the
 * enrolled device the backend says sent it, is bound to the session's generation now, is recent and
 * not a replay; then it starts the very Move its own button starts — readiness first, then the
 * record, which names the asking device as initiator (into a fresh clone on it, when the asking
 * device's own checkout blocked the move and the person there chose a fresh clone).
 * A blocked readiness is kept with the session and published to every device (move-service.ts),
 * where the asking device shows it and checks again by asking again; once the owner's re-check
 * finds nothing blocking, the owner starts the move on its own. The fixes of the owner's side run
 * on the owner, by the person there: a Commit or Push runs the repository's hooks as the user's own
 * git, which no other device should set off unseen.
 */
import { z } from 'zod';
import type { SessionAnswer } from '../../shared/api/sessions.ts';
import { MOVE_HERE_MAX_AGE_MS, type MoveResult } from '../../shared/device-api.ts';
import { fail, ok, type ActionResult } from '../../shared/errors.ts';
import { newId } from '../crypto/new-id.ts';
import type { Coordinator } from '../handoff/coordinator.ts';
import type { LocalState } from '../local-state/local-state.ts';
import type { BackendPort } from '../ports/backend.ts';
import type { Clock } from '../ports/clock.ts';
import type { SealPort } from '../ports/seal.ts';
import type { DeviceDirectory } from './device-directory.ts';
import { MoveHereRecord } from './move-here-record.ts';
import type { PostHandler } from './session-posts.ts';
import { postLaterMessage, signPost, verifyPost, type PostSigner } from './signed-posts.ts';

const SignedRequestSchema = z.strictObject({
  requestId: z.string().min(1).max(64),
  sessionId: z.string().min(1).max(64),
  generation: z.number().int().positive(),
  deviceId: z.string().min(1).max(64),
  at: z.number(),
  /** Into a fresh clone on the asking device (its checkout blocked the move); absent: its checkout. */
  freshClone: z.literal(true).optional(),
  signature: z.string().max(200),
});
type SignedRequest = z.infer<typeof SignedRequestSchema>;

/** What the asking device signs: a fresh-clone request under a tag of its own, so neither reads as the other. */
function signedFields(r: Omit<SignedRequest, 'signature'>): (string | number)[] {
  const fields = [r.requestId, r.sessionId, r.generation, r.deviceId, r.at];
  return r.freshClone ? ['baton-move-here-fresh-clone/1', ...fields] : ['baton-move-here/1', ...fields];
}

/** What the person asked for: into a fresh clone here, and at the generation the button was drawn for. */
export interface MoveHereAsk {
  freshClone?: boolean;
  /** The session's generation the asking device showed; another one now is refused (the session moved meanwhile). */
  generation?: number;
}

export interface MoveHereDeps {
  selfId: string;
  state: Pick<LocalState, 'readSession' | 'updateSession'>;
  backend: Pick<BackendPort, 'postAnswer'>;
  seal: Pick<SealPort, 'sealJson'>;
  /** This device's signing key; without one it cannot ask. */
  signer?: PostSigner;
  devices: Pick<DeviceDirectory, 'get' | 'isOnline' | 'nameOf'>;
  handoffs: Pick<Coordinator, 'active'>;
  /** Starts the move asked for, as the owner's Move does, naming the asking device as initiator (into a fresh clone there when asked). */
  start(sessionId: string, targetDeviceId: string, initiatorDeviceId: string, freshClone: boolean): Promise<MoveResult>;
  clock: Clock;
  log(message: string): void;
}

export class MoveHere implements PostHandler {
  /** The requests acted on (durable, bounded) and the pace of readiness checks for them. */
  private readonly record: MoveHereRecord;

  constructor(private readonly deps: MoveHereDeps) {
    this.record = new MoveHereRecord({ state: deps.state, clock: deps.clock, maxAgeMs: MOVE_HERE_MAX_AGE_MS });
  }

  /** Asks the owner of `sessionId` to move it to this device; refused at once when the owner is offline, or the session moved on since `asked.generation`. */
  async ask(sessionId: string, asked: MoveHereAsk = {}): Promise<ActionResult> {
    const { state, devices, selfId } = this.deps;
    const session = state.readSession(sessionId);
    if (!session) return fail('not_found', 'No such session.');
    if (session.ownerDeviceId === selfId) return fail('already_here', 'The session already runs on this device.');
    if (asked.generation !== undefined && asked.generation !== session.generation)
      return fail(
        'stale_generation',
        `The session moved meanwhile: it runs on ${devices.nameOf(session.ownerDeviceId)} now. Nothing was asked.`,
      );
    if (this.deps.handoffs.active(sessionId)) return fail('handoff_in_progress', 'A move of this session is already in progress.');
    const owner = devices.get(session.ownerDeviceId);
    const name = devices.nameOf(session.ownerDeviceId);
    if (!owner || owner.status !== 'enrolled' || !devices.isOnline(owner))
      return fail(
        'source_offline',
        `${name} is offline, so it cannot move the session here. Open Baton on ${name}, or wait until it is back online, then try again.`,
      );
    if (!this.deps.signer) return fail('unsupported', 'This device cannot ask for a move: it has no signing key.');
    const body = {
      requestId: newId(),
      sessionId,
      generation: session.generation,
      deviceId: selfId,
      at: this.deps.clock(),
      ...(asked.freshClone ? { freshClone: true as const } : {}),
    };
    const signed: SignedRequest = { ...body, signature: signPost(this.deps.signer, signedFields(body)) };
    const sealed = this.deps.seal.sealJson(signed, { kind: 'move-here-request', sessionId });
    const posted = await this.deps.backend.postAnswer(sessionId, session.generation, sealed, `move-here-${body.requestId}`);
    if (posted.ok) return ok(undefined);
    if (posted.code === 'stale_generation')
      return fail('stale_generation', 'The session moved meanwhile; see where it runs now, then try again.');
    if (posted.code === 'rate_limited') return fail('rate_limited', postLaterMessage(posted.details, 'requests'));
    return fail(posted.code, posted.message);
  }

  /** The owner's side: takes a posted Move here request, opened as `body`, and starts the move it asks for once its checks pass. */
  async take(sessionId: string, posted: SessionAnswer, body: unknown): Promise<void> {
    const parsed = SignedRequestSchema.safeParse(body);
    const refusal = parsed.success ? this.refusal(sessionId, posted, parsed.data) : 'it does not have the shape of a request';
    if (refusal !== null) {
      this.deps.log(`session ${sessionId}: refused a Move here from ${posted.deviceId}: ${refusal}`);
      return;
    }
    const asker = posted.deviceId;
    this.record.remember(sessionId, parsed.data!.requestId, parsed.data!.at);
    this.deps.log(`session ${sessionId}: ${this.deps.devices.nameOf(asker)} asked to move it there (Move here)`);
    await this.record.pace(sessionId, async () => {
      const started = await this.deps.start(sessionId, asker, asker, parsed.data!.freshClone === true);
      if (!started.ok) this.deps.log(`session ${sessionId}: the Move here of ${asker} did not start: ${started.code} ${started.message}`);
    });
  }

  /** Why the request may not be acted on, or null. */
  private refusal(sessionId: string, posted: SessionAnswer, body: SignedRequest): string | null {
    const session = this.deps.state.readSession(sessionId);
    if (!session || session.ownerDeviceId !== this.deps.selfId) return 'this device does not own the session';
    if (body.sessionId !== sessionId) return 'it asks for another session';
    if (body.deviceId !== posted.deviceId) return 'it names another device than the one that sent it';
    if (body.generation !== posted.generation || body.generation !== session.generation)
      return 'it was asked at another generation of the session';
    const { signature, ...signed } = body;
    if (!verifyPost(this.deps.devices.get(body.deviceId), signedFields(signed), signature))
      return 'it is not signed by an enrolled device of the account';
    if (Math.abs(this.deps.clock() - body.at) > MOVE_HERE_MAX_AGE_MS) return 'it is too old';
    return this.record.refusal(sessionId, body.requestId);
  }
}
